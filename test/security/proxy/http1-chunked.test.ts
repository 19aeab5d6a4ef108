// The chunked decoder on well-formed bodies in every split, and on the framings it must refuse.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkedDecoder, ChunkedError } from '../../../src/security/proxy/http1/chunked-decoder.ts';

/** Decodes `wire` fed in pieces of `step` bytes: the body, and where the message ended in the last piece. */
function decode(wire: string, step = wire.length): { body: string; rest: string; done: boolean } {
  const parts: Buffer[] = [];
  const decoder = new ChunkedDecoder((data) => parts.push(Buffer.from(data)), { maxLineBytes: 64, maxTrailerBytes: 64 });
  const bytes = Buffer.from(wire, 'latin1');
  let rest = '';
  for (let at = 0; at < bytes.length; at += step) {
    const piece = bytes.subarray(at, at + step);
    const stopped = decoder.push(piece);
    if (decoder.done) {
      rest = piece.subarray(stopped).toString('latin1') + bytes.subarray(at + step).toString('latin1');
      break;
    }
    assert.equal(stopped, piece.length);
  }
  return { body: Buffer.concat(parts).toString('latin1'), rest, done: decoder.done };
}

test('bodies decode alike whatever the pieces they arrive in; what follows the message is left', () => {
  const wire = '5\r\nhello\r\n1;name=value;x="a b"\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\nGET / HTTP/1.1\r\n';
  for (const step of [1, 2, 3, 7, 1000]) {
    assert.deepEqual(decode(wire, step), { body: 'hello 0123456789', rest: 'GET / HTTP/1.1\r\n', done: true }, `pieces of ${String(step)}`);
  }
  assert.deepEqual(decode('0\r\n\r\n'), { body: '', rest: '', done: true });
  assert.deepEqual(decode('fF\r\n'), { body: '', rest: '', done: false });
  assert.equal(decode(`ff\r\n${'x'.repeat(255)}\r\n0\r\n\r\n`).body.length, 255);
});

test('malformed framings are refused', () => {
  const bad = {
    'no size': '\r\nx\r\n0\r\n\r\n',
    'a sign': '+5\r\nhello\r\n0\r\n\r\n',
    '0x prefix': '0x5\r\nhello\r\n0\r\n\r\n',
    'space after the size': '5 \r\nhello\r\n0\r\n\r\n',
    'bare LF after the size': '5\nhello\r\n0\r\n\r\n',
    'data longer than its size': '3\r\nhello\r\n0\r\n\r\n',
    'data shorter than its size': '6\r\nhello\r\n0\r\n\r\n',
    'bare LF after the data': '5\r\nhello\n0\r\n\r\n',
    'a size too large': 'fffffffffffffff\r\n',
    'a control character in an extension': '5;a\x01b\r\nhello\r\n0\r\n\r\n',
    'a size line over the bound': `5;${'x'.repeat(80)}\r\nhello\r\n0\r\n\r\n`,
    'a trailer section over the bound': `0\r\nX: ${'y'.repeat(80)}\r\n\r\n`,
    'an obs-folded trailer': '0\r\nX: a\r\n b\r\n\r\n',
    'a bare LF ending the message': '0\r\n\n',
  };
  for (const [what, wire] of Object.entries(bad)) {
    assert.throws(() => decode(wire), ChunkedError, what);
    assert.throws(() => decode(wire, 1), ChunkedError, `${what}, a byte at a time`);
  }
});
