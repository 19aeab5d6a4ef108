// HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), decoded incrementally as bytes arrive: used for
// request bodies from clients and answer bodies from origins. Strict, because a framing two parsers
// read differently is request smuggling: a chunk size is hexadecimal digits only (no sign, no
// space, no `0x`; extensions start right after it with `;`), every line ends with CRLF (a bare CR
// or LF is refused), the data of a chunk is followed by CRLF exactly, and the size line (with its
// extensions) and the trailer section are bounded. Extensions and trailers are read and dropped:
// nothing of them is passed on.

export class ChunkedError extends Error {
  override name = 'ChunkedError';
}

export interface ChunkedLimits {
  /** Bytes of one chunk-size line, extensions included. */
  maxLineBytes?: number;
  /** Bytes of the trailer section. */
  maxTrailerBytes?: number;
}

// The decoder's states (numbers: a switch over them stays cheap).
/** The hexadecimal digits of a chunk size. */
const Size = 0;
/** After the size: extensions, up to the CR. */
const Extension = 1;
/** The LF ending a size line. */
const SizeLf = 2;
/** `remaining` bytes of chunk data. */
const Data = 3;
/** The CR after chunk data. */
const DataCr = 4;
/** The LF after chunk data. */
const DataLf = 5;
/** The start of a trailer line, or of the empty line ending the message. */
const TrailerStart = 6;
/** Inside a trailer line, up to its CR. */
const Trailer = 7;
/** The LF ending a trailer line. */
const TrailerLf = 8;
/** The LF of the empty line ending the message. */
const EndLf = 9;
const Done = 10;

const CR = 0x0d;
const LF = 0x0a;
/** 2^52: a size beyond it would lose precision in a double; no body is that long. */
const maxChunkSize = 2 ** 52;

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

export class ChunkedDecoder {
  readonly #onData: (data: Buffer) => void;
  readonly #maxLineBytes: number;
  readonly #maxTrailerBytes: number;
  #state = Size;
  #size = 0;
  #digits = 0;
  #remaining = 0;
  /** Bytes of the current size line, or of the trailer section so far. */
  #lineBytes = 0;

  constructor(onData: (data: Buffer) => void, limits: ChunkedLimits = {}) {
    this.#onData = onData;
    this.#maxLineBytes = limits.maxLineBytes ?? 4096;
    this.#maxTrailerBytes = limits.maxTrailerBytes ?? 16 * 1024;
  }

  /** The last chunk and its trailers have been read. */
  get done(): boolean {
    return this.#state === Done;
  }

  /**
   * Decodes `chunk` from `start`; body bytes go to onData as subarrays of it. Returns where it
   * stopped: chunk.length, or the end of the message once done (what follows is the next message's).
   */
  push(chunk: Buffer, start = 0): number {
    let i = start;
    const end = chunk.length;
    while (i < end) {
      switch (this.#state) {
        case Data: {
          const take = Math.min(this.#remaining, end - i);
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = DataCr;
          const data = chunk.subarray(i, i + take);
          i += take;
          this.#onData(data);
          continue;
        }
        case Done:
          return i;
        default:
          this.#byte(chunk[i] ?? 0);
          i++;
      }
    }
    return i;
  }

  /** One byte of framing (everything but chunk data). */
  #byte(byte: number): void {
    switch (this.#state) {
      case Size: {
        const digit = hexValue(byte);
        if (digit >= 0) {
          this.#size = this.#size * 16 + digit;
          if (++this.#digits > 13 || this.#size > maxChunkSize) throw new ChunkedError('chunk size too large');
          this.#line(1);
          return;
        }
        if (this.#digits === 0) throw new ChunkedError('chunk size expected');
        if (byte === CR) this.#state = SizeLf;
        else if (byte === 0x3b) this.#state = Extension;
        else throw new ChunkedError('invalid chunk size');
        this.#line(1);
        return;
      }
      case Extension:
        // Anything visible, space or tab up to the CR; control characters (a bare LF) are refused.
        if (byte === CR) this.#state = SizeLf;
        else if ((byte < 0x20 && byte !== 0x09) || byte === 0x7f) throw new ChunkedError('invalid chunk extension');
        this.#line(1);
        return;
      case SizeLf:
        if (byte !== LF) throw new ChunkedError('chunk size line without LF');
        this.#lineBytes = 0;
        this.#digits = 0;
        if (this.#size === 0) {
          this.#state = TrailerStart;
          return;
        }
        this.#remaining = this.#size;
        this.#size = 0;
        this.#state = Data;
        return;
      case DataCr:
        if (byte !== CR) throw new ChunkedError('chunk data not followed by CRLF');
        this.#state = DataLf;
        return;
      case DataLf:
        if (byte !== LF) throw new ChunkedError('chunk data not followed by CRLF');
        this.#state = Size;
        return;
      case TrailerStart:
        this.#trailer(1);
        if (byte === CR) this.#state = EndLf;
        else if (byte === LF || byte === 0x20 || byte === 0x09) throw new ChunkedError('invalid trailer line');
        else this.#state = Trailer;
        return;
      case Trailer:
        this.#trailer(1);
        if (byte === CR) this.#state = TrailerLf;
        else if (byte === LF || (byte < 0x20 && byte !== 0x09) || byte === 0x7f) throw new ChunkedError('invalid trailer line');
        return;
      case TrailerLf:
        if (byte !== LF) throw new ChunkedError('trailer line without LF');
        this.#trailer(1);
        this.#state = TrailerStart;
        return;
      case EndLf:
        if (byte !== LF) throw new ChunkedError('chunked body not ended by CRLF');
        this.#state = Done;
        return;
      default:
        return;
    }
  }

  #line(bytes: number): void {
    this.#lineBytes += bytes;
    if (this.#lineBytes > this.#maxLineBytes) throw new ChunkedError('chunk size line too long');
  }

  #trailer(bytes: number): void {
    this.#lineBytes += bytes;
    if (this.#lineBytes > this.#maxTrailerBytes) throw new ChunkedError('trailer section too large');
  }
}
