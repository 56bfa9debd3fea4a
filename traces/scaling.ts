// Test support: how a reader's cost grows with its input, measured as the ratio of the
// CPU time (process.cpuUsage, not wall time: a busy machine delays a run but does not
// make it use more CPU) for an input `factor` times larger, each the best of a few runs
// in this process. A linear reader gives about `factor`, a quadratic one its square; the
// tests allow a wide margin between the two and never an absolute time. (The garbage
// collector makes a linear reader look up to twice as costly on the larger input, once
// its objects outgrow V8's young generation.)

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
