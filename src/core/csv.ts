/** CSV lines for exports opened in spreadsheets (RFC 4180), safe against formula injection. */

export type CsvField = string | number | boolean | null | undefined;

// A spreadsheet runs a cell starting with one of these as a formula (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

function csvCell(field: CsvField): string {
  if (field === null || field === undefined) return '';
  if (typeof field !== 'string') return String(field);
  const text = FORMULA_START.test(field) ? `'${field}` : field;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One record, ending in CRLF: fields with a comma, quote or line break quoted and their quotes
 * doubled; a text cell starting with = + - @ (or a tab or carriage return) prefixed with a
 * single quote so it is read as text. Numbers are written as they are (-5 stays a number).
 */
export function toCsvLine(fields: readonly CsvField[]): string {
  return `${fields.map(csvCell).join(',')}\r\n`;
}
