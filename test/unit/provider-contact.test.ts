import { describe, expect, it } from 'vitest';
import { createProviderContactRecorder } from '../../src/core/provider-contact.js';

describe('the provider contact recorder', () => {
  it('records usable answers only, at most once a minute', () => {
    let now = 1_000_000;
    const recorded: number[] = [];
    const observe = createProviderContactRecorder({ now: () => now, recordAnsweredAt: (at) => recorded.push(at) });
    observe({ method: 'POST', status: 401 });
    observe({ method: 'GET', status: 503 });
    observe({ method: 'GET', error: 'ECONNREFUSED' });
    expect(recorded).toEqual([]);
    observe({ method: 'GET', status: 200 });
    now += 59_000;
    observe({ method: 'GET', status: 204 });
    expect(recorded).toEqual([1_000_000]);
    now += 1_000;
    observe({ method: 'PUT', status: 200 });
    expect(recorded).toEqual([1_000_000, 1_060_000]);
  });
});
