// A small asynchronous key-value store, the kind of code the fast-check bridge tests: every
// access to its storage is an `await` (a disk, a network, a lock), and `step` is that wait:
// under test, a point where fast-check's scheduler decides who runs next. `append` reads,
// then writes back, and `put` writes, under a per-key lock; the seeded bug `lost-update`
// lets append skip the lock, so two appends that interleave lose one of them. (The first
// version locked appends only: the bridge found a put lost under an append's write-back.)

export type Bug = 'lost-update';

export class KvStore {
  private readonly data = new Map<string, string>();
  private readonly locks = new Map<string, Promise<void>>();

  constructor(
    private readonly step: () => Promise<unknown> = () => Promise.resolve(),
    private readonly bug?: Bug,
  ) {}

  async get(key: string): Promise<string> {
    await this.step();
    return this.data.get(key) ?? '';
  }

  async put(key: string, value: string): Promise<void> {
    const release = await this.lock(key);
    try {
      await this.step();
      this.data.set(key, value);
    } finally {
      release();
    }
  }

  async append(key: string, value: string): Promise<void> {
    const release = this.bug === 'lost-update' ? () => {} : await this.lock(key);
    try {
      const current = await this.get(key);
      await this.step();
      this.data.set(key, current + value);
    } finally {
      release();
    }
  }

  /** Waits for the key's lock; returns its release. */
  private async lock(key: string): Promise<() => void> {
    const held = this.locks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    this.locks.set(key, held.then(() => next));
    await held;
    return release;
  }
}
