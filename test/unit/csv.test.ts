import { describe, expect, it } from 'vitest';
import { toCsvLine } from '../../src/core/csv.js';

describe('toCsvLine', () => {
  it('joins plain fields with commas and ends the record with CRLF', () => {
    expect(toCsvLine(['a.example', 'alice', 1200, null, undefined, true])).toBe('a.example,alice,1200,,,true\r\n');
  });

  it('quotes fields with a comma, quote or line break and doubles their quotes', () => {
    expect(toCsvLine(['a,b', 'say "hi"', 'two\nlines', 'cr\rhere', 'plain'])).toBe('"a,b","say ""hi""","two\nlines","cr\rhere",plain\r\n');
  });

  it('prefixes text a spreadsheet would run as a formula with a single quote', () => {
    expect(toCsvLine(['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', '\tx', 'a=b'])).toBe(
      `"'=HYPERLINK(""x"")",'+1,'-2,'@SUM(A1),'\tx,a=b\r\n`,
    );
  });

  it('writes numbers as numbers, negative ones included', () => {
    expect(toCsvLine([-5, 0, 1.5])).toBe('-5,0,1.5\r\n');
  });
});
