// siphash24 (mafintosh) ships no types: SipHash-2-4 of `data` under a 16-octet key, 8 octets out.
declare module 'siphash24' {
  function siphash24(data: Uint8Array, key: Uint8Array, out?: Uint8Array, noAssert?: boolean): Uint8Array;
  export default siphash24;
}
