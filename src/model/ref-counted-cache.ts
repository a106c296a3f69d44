/**
 * A keyed cache of expensive async resources (a loaded model, a context) shared by everyone
 * who asks for the same key and disposed when the last holder releases it. A failed creation
 * is evicted, so the next caller tries again instead of inheriting the error forever.
 */
export class RefCountedCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; holders: number }>();

  constructor(private readonly dispose: (value: T) => Promise<void>) {}

  async acquire(key: string, create: () => Promise<T>): Promise<{ value: T; release: () => Promise<void> }> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { value: create(), holders: 0 };
      this.entries.set(key, entry);
      const created = entry;
      created.value.catch(() => {
        if (this.entries.get(key) === created) this.entries.delete(key);
      });
    }
    entry.holders++;
    const held = entry;
    let value: T;
    try {
      value = await held.value;
    } catch (error) {
      held.holders--;
      throw error;
    }
    let released = false;
    return {
      value,
      release: async () => {
        if (released) return;
        released = true;
        held.holders--;
        if (held.holders === 0 && this.entries.get(key) === held) {
          this.entries.delete(key);
          await this.dispose(value);
        }
      },
    };
  }

  /** How many distinct live resources there are (for tests and stats). */
  get size(): number {
    return this.entries.size;
  }
}
