export interface GroupCommitOptions<T, R> {
  /** Stores the items of several submissions at once (one transaction); returns one result per item, in order, or throws and stores nothing. */
  commit(items: T[]): R[] | Promise<R[]>;
  /**
   * Whether a failed shared commit is tried again one submission at a time. Default: always.
   * Answer false for failures that would refuse each submission alike (a busy database): they
   * are then passed to every submission at once instead of waited for again, once per submission.
   */
  retryAlone?(error: unknown): boolean;
}

interface Submission<T, R> {
  items: T[];
  resolve(results: R[]): void;
  reject(error: unknown): void;
}

/**
 * Group commit: the submissions made in the same turn of the event loop are committed
 * together, in submission order, in one `commit` call, and each promise settles once that call
 * has, so a resolved submission is still a stored one. Each resolves with the results of its
 * own items only. Should the shared call fail, nothing of it was stored and every submission
 * is committed again on its own, so each settles as it would have alone.
 */
export function createGroupCommit<T, R>(options: GroupCommitOptions<T, R>): (items: T[]) => Promise<R[]> {
  const { commit, retryAlone = () => true } = options;
  let group: Submission<T, R>[] = [];

  async function commitAlone(submission: Submission<T, R>): Promise<void> {
    try {
      submission.resolve(await commit(submission.items));
    } catch (error) {
      submission.reject(error);
    }
  }

  /** Never rejects: it runs from setImmediate, and every failure goes to the submissions. */
  async function flush(): Promise<void> {
    const submissions = group;
    group = [];
    if (submissions.length === 1) return commitAlone(submissions[0] as Submission<T, R>);
    let results: R[];
    try {
      results = await commit(submissions.flatMap((submission) => submission.items));
    } catch (error) {
      if (!retryAlone(error)) for (const submission of submissions) submission.reject(error);
      else for (const submission of submissions) await commitAlone(submission);
      return;
    }
    let offset = 0;
    for (const submission of submissions) {
      const start = offset;
      offset += submission.items.length;
      submission.resolve(results.slice(start, offset));
    }
  }

  return (items) =>
    new Promise<R[]>((resolve, reject) => {
      group.push({ items, resolve, reject });
      // setImmediate runs after this turn's I/O callbacks: every submission made in it joins.
      if (group.length === 1) setImmediate(() => void flush());
    });
}
