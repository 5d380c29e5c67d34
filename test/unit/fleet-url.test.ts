import { describe, expect, it } from 'vitest';
import { describeFleetUrl, withoutFleetPassword } from '../../src/fleet/url.js';

describe('the fleet database URL as shown', () => {
  const url = 'postgres://wpp:p%40ss%2Fw0rd-long@db.host.example:5432/wpp_fleet?sslmode=require';

  it('shows the user, host, port, database and options, the password redacted', () => {
    expect(describeFleetUrl(url)).toBe('postgres://wpp:[redacted]@db.host.example:5432/wpp_fleet?sslmode=require');
    expect(describeFleetUrl('postgresql://db.host.example/wpp_fleet')).toBe('postgresql://db.host.example/wpp_fleet');
  });

  it("takes the password out of a driver's message, written as in the URL or decoded", () => {
    const message = 'could not log in with p@ss/w0rd-long (from p%40ss%2Fw0rd-long)';
    expect(withoutFleetPassword(message, url)).toBe('could not log in with [redacted] (from [redacted])');
    expect(withoutFleetPassword(message, 'postgres://db.host.example/wpp_fleet')).toBe(message);
    expect(withoutFleetPassword('refused 100%zz', 'postgres://wpp:100%zz@db.host.example/wpp_fleet')).toBe('refused [redacted]');
  });
});
