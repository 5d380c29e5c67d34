/**
 * What a started plugin must undo when it closes, and the work it must let finish first.
 * Closing aborts `signal` (a sync in progress stops: queued reads are dropped, those in
 * flight abandoned; provider calls waiting for a token of the request budget are not sent,
 * and the worker puts their jobs back as pending), waits for the tracked passes, then runs the closers in reverse order
 * of registration: the database, registered first, closes last.
 */
export function createLifecycle() {
  const closers: (() => Promise<void> | void)[] = [];
  const passes = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  let closing: Promise<void> | undefined;

  const closeAll = async () => {
    stopping.abort();
    await Promise.allSettled([...passes]);
    for (const close of closers.reverse()) await close();
  };

  return {
    /** Aborted when closing starts. */
    signal: stopping.signal,
    onClose(close: () => Promise<void> | void): void {
      closers.push(close);
    },
    /** A sync or enforcement pass that closing waits for, before the database closes under it. */
    track<T>(pass: Promise<T>): Promise<T> {
      passes.add(pass);
      void pass.finally(() => passes.delete(pass)).catch(() => undefined);
      return pass;
    },
    /** Idempotent: every caller waits for the same close. */
    close(): Promise<void> {
      return (closing ??= closeAll());
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
