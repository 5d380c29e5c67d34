/**
 * The group commit on its own, without HTTP: submissions made in one turn of the event loop
 * share one commit, each gets its own results, and a failed shared commit leaves each
 * submission with the outcome it would have had alone.
 */
import { describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../src/web/group-commit.js';

/** A commit that records the items of each call and answers each item with its double. */
function recordingCommit(refuse: (items: number[]) => Error | undefined = () => undefined) {
  const calls: number[][] = [];
  const commit = (items: number[]) => {
    calls.push(items);
    const error = refuse(items);
    if (error) throw error;
    return items.map((item) => item * 2);
  };
  return { calls, commit };
}

const outcome = (promise: Promise<number[]>) =>
  promise.then(
    (results) => ({ results }),
    (error: unknown) => ({ error: (error as Error).message }),
  );

describe('createGroupCommit', () => {
  it('commits 20 submissions made in one turn in one call, in order, and gives each its own results', async () => {
    const { calls, commit } = recordingCommit();
    const submit = createGroupCommit({ commit });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => submit([i])));
    expect(calls).toEqual([Array.from({ length: 20 }, (_, i) => i)]);
    answers.forEach((results, i) => expect(results).toEqual([i * 2]));
  });

  it('slices the results by submission when submissions hold several items', async () => {
    const { calls, commit } = recordingCommit();
    const submit = createGroupCommit({ commit });
    const answers = await Promise.all([submit([1, 2]), submit([3]), submit([4, 5, 6])]);
    expect(calls).toEqual([[1, 2, 3, 4, 5, 6]]);
    expect(answers).toEqual([[2, 4], [6], [8, 10, 12]]);
  });

  it('commits submissions of different turns separately, a lone one with its own items only', async () => {
    const { calls, commit } = recordingCommit();
    const submit = createGroupCommit({ commit });
    expect(await submit([1])).toEqual([2]);
    expect(await Promise.all([submit([2]), submit([3])])).toEqual([[4], [6]]);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('when the shared commit fails, commits each submission alone so only the culprit fails', async () => {
    const { calls, commit } = recordingCommit((items) => (items.includes(13) ? new Error('cannot take 13') : undefined));
    const submit = createGroupCommit({ commit });
    const outcomes = await Promise.all([submit([1]), submit([13]), submit([2, 3])].map(outcome));
    expect(outcomes).toEqual([{ results: [2] }, { error: 'cannot take 13' }, { results: [4, 6] }]);
    expect(calls).toEqual([[1, 13, 2, 3], [1], [13], [2, 3]]);
  });

  it('passes a failure that retryAlone declines to every submission, without committing again', async () => {
    const { calls, commit } = recordingCommit(() => new Error('database busy'));
    const submit = createGroupCommit({ commit, retryAlone: (error) => (error as Error).message !== 'database busy' });
    const outcomes = await Promise.all([submit([1]), submit([2]), submit([3])].map(outcome));
    expect(outcomes).toEqual([{ error: 'database busy' }, { error: 'database busy' }, { error: 'database busy' }]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('waits for an asynchronous commit before settling, and a rejected one counts as a failure', async () => {
    const calls: number[][] = [];
    const submit = createGroupCommit({
      commit: async (items: number[]) => {
        calls.push(items);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (items.includes(7)) throw new Error('no 7');
        return items;
      },
    });
    const outcomes = await Promise.all([submit([7]), submit([8])].map(outcome));
    expect(outcomes).toEqual([{ error: 'no 7' }, { results: [8] }]);
    expect(calls).toEqual([[7, 8], [7], [8]]);
  });
});
