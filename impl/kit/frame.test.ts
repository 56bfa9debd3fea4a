import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frame, FrameError, FrameReader, HEADER, Kind, MAX_PAYLOAD } from './frame.ts';

describe('frames', () => {
  it('come out whole and in order however the stream is cut', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 20 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }), (payloads, cuts) => {
        const stream = Buffer.concat(payloads.map((p, i) => frame(Kind.Req, i + 1, p)));
        const got: { id: number; payload: Buffer }[] = [];
        const r = new FrameReader((kind, id, payload) => {
          expect(kind).toBe(Kind.Req);
          got.push({ id, payload: Buffer.from(payload) });
        });
        let off = 0;
        for (let i = 0; off < stream.length; i++) {
          const n = cuts[i % cuts.length];
          r.push(stream.subarray(off, off + n));
          off += n;
        }
        expect(got.map((g) => g.id)).toEqual(payloads.map((_, i) => i + 1));
        got.forEach((g, i) => expect(g.payload.equals(Buffer.from(payloads[i]))).toBe(true));
      }),
    );
  });

  it('refuses a frame longer than the limit before buffering it', () => {
    const head = Buffer.alloc(HEADER);
    head.writeUInt32BE(MAX_PAYLOAD + 1, 0);
    const r = new FrameReader(() => undefined);
    expect(() => r.push(head)).toThrow(FrameError);
  });
});
