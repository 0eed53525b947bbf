import { MAX_CHUNK, rechunk } from './chunks';

async function collect(pieces: number[], max = 10) {
  async function* src() {
    let n = 0;
    for (const len of pieces) yield Buffer.alloc(len, n++);
  }
  const out: Buffer[] = [];
  for await (const c of rechunk(src(), max)) out.push(c);
  return out;
}

describe('rechunk', () => {
  it('cuts big pieces to the maximum and joins small ones, keeping every byte in order', async () => {
    const out = await collect([25, 3, 3, 3, 3, 1]);
    expect(out.map((c) => c.length)).toEqual([10, 10, 10, 8]);
    expect(Buffer.concat(out)).toEqual(
      Buffer.concat([
        Buffer.alloc(25, 0),
        Buffer.alloc(3, 1),
        Buffer.alloc(3, 2),
        Buffer.alloc(3, 3),
        Buffer.alloc(3, 4),
        Buffer.alloc(1, 5),
      ]),
    );
  });

  it('yields nothing for an empty stream and never more than 1 MiB by default', async () => {
    await expect(collect([])).resolves.toEqual([]);
    async function* big() {
      yield Buffer.alloc(2 * MAX_CHUNK + 5);
    }
    const sizes: number[] = [];
    for await (const c of rechunk(big())) sizes.push(c.length);
    expect(sizes).toEqual([MAX_CHUNK, MAX_CHUNK, 5]);
  });
});
