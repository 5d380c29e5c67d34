import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { syncStatistics } from '../../src/core/statistics.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { describeError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import type { ProviderClient } from '../../src/provider/index.js';
import { withTempDir } from '../helpers/temp.js';

describe('describeError', () => {
  it('redacts credentials a message echoes: bearer tokens, keys in a query, keys in JSON', () => {
    expect(describeError(new Error('sent authorization: Bearer abc.DEF-123 and was refused'))).toBe(
      'Error: sent authorization: Bearer [redacted] and was refused',
    );
    expect(
      describeError(Object.assign(new Error('GET https://p.example/v1?domain=a.example&api_key=s3cr3t&x=1 failed'), { code: 'E_GET' })),
    ).toBe('E_GET: GET https://p.example/v1?domain=a.example&api_key=[redacted]&x=1 failed');
    expect(describeError('rejected {"id":"a@example.com","api_key":"s3\\"cr3t","tag":"x"}')).toBe(
      'rejected {"id":"a@example.com","api_key":"[redacted]","tag":"x"}',
    );
    expect(describeError(new Error('token=abc'))).toBe('Error: token=abc');
  });

  it('redacts before cutting, so a secret at the end is never left half shown', () => {
    const text = describeError(new Error(`${'x'.repeat(960)} {"api_key":"${'k'.repeat(40)}"}`));
    expect(text).not.toMatch(/k{5}/);
    expect(text).toMatch(/\{"api_key":"\[redacted\]"\}$/);
  });
});

describe('errors recorded in job_runs', () => {
  it('a statistics sync that fails records the error as "CODE: message" on one line', () =>
    withTempDir(async (dir) => {
      const db = openDatabase(join(dir, 'plugin.sqlite'));
      try {
        migrate(db, paths.migrations);
        const stats = createStatisticsRepo(db);
        const full = Object.assign(new Error('database or disk\nis full'), { code: 'SQLITE_FULL' });
        const failing = {
          ...stats,
          pruneSamples: () => {
            throw full;
          },
        };
        const deps = {
          stats: failing,
          accounts: createAccountsRepo(db),
          provider: {} as ProviderClient,
          logger: pino({ level: 'silent' }),
          now: Date.now,
        };
        await expect(syncStatistics(deps, { concurrency: 1 })).rejects.toBe(full);
        const [run] = stats.recentRuns('sync-stats');
        expect(run?.status).toBe('failed');
        expect(JSON.parse(run?.details ?? 'null')).toEqual({ error: 'SQLITE_FULL: database or disk is full' });
      } finally {
        db.close();
      }
    }));
});
