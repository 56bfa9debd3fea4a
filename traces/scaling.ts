// Test support: how a reader's cost grows with its input, measured as the ratio of the
// CPU time (process.cpuUsage, not wall time: a busy machine delays a run but does not
// make it use more CPU) for an input `factor` times larger, each the best of a few runs
// in this process. A linear reader gives about `factor`, a quadratic one its square; the
// tests allow a wide margin between the two and never an absolute time. (The garbage
// collector makes a linear reader look up to twice as costly on the larger input, once
// its objects outgrow V8's young generation.) On a loaded machine other processes' cache
// traffic and the collector's concurrent threads can still inflate one measurement, so a
// ratio above twice `factor` is measured again, up to three times, and the smallest kept:
// a quadratic reader stays near `factor` squared in every attempt.

function cpuMs(f: () => unknown): number {
  const before = process.cpuUsage();
  f();
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

export function growth<T>(run: (input: T) => unknown, make: (n: number) => T, n: number, factor = 8): number {
  const small = make(n);
  const large = make(factor * n);
  run(small); // warm up the JIT on the small input first
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio > 2 * factor; attempt++) ratio = Math.min(ratio, once(run, small, large, factor));
  return ratio;
}

function once<T>(run: (input: T) => unknown, small: T, large: T, factor: number): number {
  let s = Infinity;
  for (let k = 0; k < 5; k++) s = Math.min(s, cpuMs(() => run(small)));
  let l = Infinity;
  for (let k = 0; k < 3; k++) {
    l = Math.min(l, cpuMs(() => run(large)));
    // Far beyond linear already: no need to wait for more runs of a slow reader.
    if (l > 4 * factor * factor * s) break;
  }
  return l / Math.max(s, 0.001);
}
