/**
 * The error summary of a form sent back with problems (views/shared/error-summary.ejs): one
 * line per problem, named by the label of its field and linking to it, so a reader learns what
 * to mend before reaching the form, and a screen reader hears it first (views/static/forms.js
 * moves the focus there).
 */
export interface ErrorSummary {
  title: string;
  items: { href: string | undefined; text: string }[];
}

export interface SummaryProblem {
  /** The element to link to (the field's id); undefined: the form as a whole, not linked. */
  id: string | undefined;
  /** The field's label as the form shows it; undefined: a message about the form. */
  label: string | undefined;
  message: string;
}

export const NOTHING_SAVED = 'Nothing was saved: please correct the following';

/** "Label: message" (the message's first letter lower-cased after a label, as a sentence continues). */
export function errorSummary(problems: readonly SummaryProblem[], title = NOTHING_SAVED): ErrorSummary {
  return {
    title,
    items: problems.map(({ id, label, message }) => ({
      href: id ? `#${id}` : undefined,
      text: label ? `${label}: ${message}` : message,
    })),
  };
}
