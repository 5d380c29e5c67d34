/**
 * A real SMTP server for the mail tests (smtp-server on 127.0.0.1, port 0): it asks for the
 * user and password the test gives, and keeps every message it takes, parsed by mailparser,
 * as a mail client would read it.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait.js';

export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  envelopeTo: string[];
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The whole message as it came over the wire (headers, both parts, their encodings). */
  raw: string;
  language: string | undefined;
  parsed: ParsedMail;
}

const addresses = (field: AddressObject | AddressObject[] | undefined): string[] =>
  [field ?? []].flat().flatMap((object) => object.value.map((address) => address.address ?? ''));

export interface TestSmtp {
  port: number;
  /** WPP_SMTP_URL for this server, with its user and password. */
  url: string;
  password: string;
  received: ReceivedMail[];
  /** Waits until `count` messages have arrived. */
  waitForMails(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startTestSmtp(user = 'wpp-mailer', password = 'smtp-Pa55word-not-in-mails'): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // No TLS in the test: the server offers no STARTTLS (nodemailer would refuse its self-signed certificate), and allows AUTH without it.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('invalid user or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            received.push({
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              from: addresses(parsed.from)[0] ?? '',
              to: addresses(parsed.to),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              raw,
              language: /<html lang="([^"]+)"/.exec(typeof parsed.html === 'string' ? parsed.html : '')?.[1],
              parsed,
            });
            callback();
          })
          .catch((error: unknown) => callback(error as Error));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    password,
    received,
    async waitForMails(count, timeoutMs = 10_000) {
      await waitFor(() => received.length >= count, timeoutMs, `${count} mails to arrive`);
      return received.slice(0, count);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
