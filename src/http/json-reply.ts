// Sends a body serialised by JSON.stringify rather than by the route's response schema: DNS bodies
// carry free-form meta and, in the gcore profile, nanosecond integers beyond 2^53 (JSON.rawJSON).
import type { FastifyReply } from 'fastify';

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}
