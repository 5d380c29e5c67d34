/**
 * The multipart reading of the one form that uploads files: a domain's settings with its
 * certificate and key (small PEM files) beside a few dozen short fields. The sizes fit that
 * form and nothing more, and the declared size is checked before a byte is read: a browser
 * always declares a form's length, so a multipart body without one is refused too.
 */
import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { AppError } from '../../errors.js';

/** A certificate and a key of at most 64 KB each; the form's fields (rules, rulesets, flags, subdomains) fit in 200 parts. */
const LIMITS = { files: 2, fileSize: 64 * 1024, fields: 200, fieldSize: 32 * 1024, parts: 202, headerPairs: 200 };

/** The most a whole submission may declare: both files and the fields, with room for multipart's own lines. */
export const CERTIFICATE_FORM_MAX_BYTES = 512 * 1024;

/** Refuses at once, without reading, a multipart body declared larger than the form can be, or not declared at all. */
function declaredSizeFits(req: Request, res: Response, next: NextFunction) {
  if (!req.is('multipart/form-data')) return next();
  const declared = Number(req.get('content-length'));
  if (req.get('content-length') === undefined || !Number.isSafeInteger(declared)) {
    throw new AppError('LENGTH_REQUIRED', 'An upload must declare its length (Content-Length), as browsers do');
  }
  if (declared > CERTIFICATE_FORM_MAX_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'The upload is too large: a certificate and a key of at most 64 KB each.');
  }
  next();
}

/** The middleware of the certificate form: the size check, then multer into memory (the files are a few KB). */
export const certificateUpload = () => [declaredSizeFits, multer({ storage: multer.memoryStorage(), limits: LIMITS }).any()];
