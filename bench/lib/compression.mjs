// Compressed size of a file at a given zstd or gzip level (node:zlib, streamed), for the analysis
// of file sizes: what the agent's level costs in size compared with the other zstd level and with gzip.
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

export async function compressedSize(file, kind, level) {
  const z =
    kind === 'zstd'
      ? zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: level } })
      : zlib.createGzip({ level });
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  await pipeline(
    fs.createReadStream(file, { highWaterMark: 1 << 20 }),
    z,
    new Writable({
      write(c, _e, cb) {
        bytes += c.length;
        cb();
      },
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { bytes, cpuMs: (cpu.user + cpu.system) / 1000 };
}
