import express from 'express';

/**
 * Reads the raw body into `req.body` as a Buffer, like `express.raw` with the same limit.
 * The common case (a plain body with a Content-Length within the limit) is read here
 * directly: body-parser's general machinery (type checks, decoders, async scopes) cost as
 * much as the whole ingest did. Everything else (compressed or chunked bodies, bodies over
 * the limit) still goes through `express.raw`, so those keep its exact answers.
 */
export function readRawBody(limit: number): express.RequestHandler {
  const rawParser = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    const encoding = req.headers['content-encoding'];
    const declared = req.headers['content-length'];
    const length = declared === undefined ? Number.NaN : Number(declared);
    if (
      (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
      req.headers['transfer-encoding'] !== undefined ||
      !Number.isSafeInteger(length) ||
      length < 0 ||
      length > limit
    ) {
      rawParser(req, res, next);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      req.removeListener('data', onData);
      if (error) {
        next(error);
        return;
      }
      req.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      next();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      // Node's parser never delivers more than Content-Length; checked anyway, as body-parser does.
      if (received > length)
        finish(Object.assign(new Error('request size did not match content length'), { status: 400, type: 'request.size.invalid' }));
      else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () =>
      finish(
        received === length
          ? undefined
          : Object.assign(new Error('request size did not match content length'), { status: 400, type: 'request.size.invalid' }),
      ),
    );
    req.once('error', (error) => finish(Object.assign(error, { status: 400, type: 'request.aborted' })));
  };
}
