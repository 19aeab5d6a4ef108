// Answers steps give instead of the origin's. The constant ones are shared by every request and
// frozen: whoever adds headers to an answer must copy it, never write into it.
import type { Answer } from '../exchange.ts';

export function sharedAnswer(answer: Answer): Answer {
  if (answer.headers !== undefined) Object.freeze(answer.headers);
  return Object.freeze(answer);
}

export const forbidden = (reason: string): Answer => sharedAnswer({ status: 403, reason, body: 'Forbidden\n' });

/** 301 keeps the method only for GET and HEAD in practice; 308 keeps it, and the body, for the rest. */
export const redirectStatus = (method: string): number => (method === 'GET' || method === 'HEAD' ? 301 : 308);

/** What follows the host in a redirect: the path and query as the client sent them. */
export function pathAndQuery(path: string, url: string | undefined): string {
  const query = url === undefined ? -1 : url.indexOf('?');
  return query < 0 || url === undefined ? path : path + url.slice(query);
}
