/**
 * E-mail to the right people (issue 22, part 3), against a real SMTP server started in the
 * test (test/helpers/smtp.ts): what arrives, to whom, in which language, with both parts and
 * the host's name, and never a secret; the cooldown, the admin's switches, SMTP unset or down,
 * the reseller's digest and the admin's daily digest.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { notifySecretOf, TEST_PANEL_SECRET, withPlugin } from '../helpers/plugin.js';
import { admin, customer, launchUrl, reseller } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { startTestSmtp, type ReceivedMail, type TestSmtp } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

/** A clock tests move by hand. */
function manualClock(start: string) {
  let now = Date.parse(start);
  return { now: () => now, set: (iso: string) => void (now = Date.parse(iso)) };
}

const mailEnv = (smtp: TestSmtp, extra: Record<string, string> = {}) => ({
  WPP_SMTP_URL: smtp.url,
  WPP_MAIL_FROM: 'protection@host.example',
  WPP_HOST_NAME: 'Example Hosting',
  WPP_UPGRADE_URL: 'https://host.example/upgrade?account={account}&domain={domain}',
  ...extra,
});

async function customers(plugin: Plugin, list: [account: string, email: string, domain: string][]) {
  await plugin.postEvents(
    list.flatMap(([account, email, domain]) => [
      { type: 'account.created', account, email },
      { type: 'domain.added', account, domain },
    ]),
  );
  await plugin.idle();
}

/** Reseller rita (with an address) and her two customers, hana (h1.example) and ivan (i1.example). */
async function ritasCustomers(plugin: Plugin) {
  await customers(plugin, [
    ['hana', 'hana@example.org', 'h1.example'],
    ['ivan', 'ivan@example.org', 'i1.example'],
  ]);
  plugin.accounts.saveReseller({ name: 'rita', email: 'rita@reseller.example' });
  plugin.accounts.setAccountReseller('hana', 'rita');
  plugin.accounts.setAccountReseller('ivan', 'rita');
}

const traffic = (sb: TestSandbox, domain: string, hits: number) =>
  sb.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits, blocked: 0 });

async function syncAndEnforce(plugin: Plugin) {
  await plugin.syncStatistics();
  await plugin.enforceLimits();
  await plugin.idle();
}

/** Opens the customer's pages once in a language, as the panel would launch them. */
async function launchIn(plugin: Plugin, account: string, locale: string, now?: number) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, { ...customer(account), locale }, { ...(now === undefined ? {} : { now }) }))).status).toBe(
    303,
  );
}

async function adminClient(plugin: Plugin, now?: number) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, admin(), { ...(now === undefined ? {} : { now }) }))).status).toBe(303);
  return client;
}

const mailJobs = (plugin: Plugin) => plugin.jobs.list({ limit: 1000 }).filter((job) => job.kind === 'email.send');

/** Every secret the plugin holds that a mail must never carry. */
function secretsOf(plugin: Plugin, sb: TestSandbox, smtp: TestSmtp, accounts: string[]): string[] {
  const keys = accounts.map((account) => plugin.accounts.getAccount(account)?.providerApiKey ?? '').filter(Boolean);
  return [sb.partnerKey, smtp.password, encodeURIComponent(smtp.password), TEST_PANEL_SECRET, notifySecretOf(plugin), ...keys];
}

function expectNoSecret(mails: ReceivedMail[], secrets: string[]) {
  expect(secrets.every((secret) => secret.length >= 8)).toBe(true);
  for (const mail of mails) for (const secret of secrets) expect(mail.raw, mail.subject).not.toContain(secret);
}

let smtp: TestSmtp;
beforeEach(async () => {
  smtp = await startTestSmtp();
});
afterEach(async () => {
  await smtp.close();
});

describe('mail to customers', () => {
  it('tells each customer of a pause in their language, as text and HTML, with the host and the next step, and no secret', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [
          ['alice', 'alice@example.org', 'a1.example'],
          ['bob', 'bob@example.net', 'b1.example'],
        ]);
        await launchIn(plugin, 'alice', 'de-DE', clock.now());
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'a1.example', 1200);
        await traffic(sb, 'b1.example', 1500);
        await syncAndEnforce(plugin);

        const mails = await smtp.waitForMails(2);
        const toAlice = mails.find((mail) => mail.to.includes('alice@example.org')) as ReceivedMail;
        const toBob = mails.find((mail) => mail.to.includes('bob@example.net')) as ReceivedMail;
        expect(toAlice.envelopeTo).toEqual(['alice@example.org']);
        expect(toAlice.from).toBe('protection@host.example');
        expect(toAlice.subject).toBe('Webschutz von a1.example ist pausiert');
        expect(toAlice.language).toBe('de');
        expect(toAlice.text).toContain('Das Zugriffslimit für diesen Zeitraum ist erreicht');
        expect(toAlice.text).toContain('1.200 von 1.000 Zugriffen');
        expect(toAlice.text).toContain('Example Hosting');
        expect(toAlice.text).toContain('https://host.example/upgrade?account=alice&domain=a1.example');
        expect(toAlice.html).toContain('<a href="https://host.example/upgrade?account=alice&amp;domain=a1.example">');
        expect(toAlice.html).toContain('Example Hosting');

        expect(toBob.subject).toBe('Web protection of b1.example is paused');
        expect(toBob.language).toBe('en');
        expect(toBob.text).toContain('1,500 of 1,000 hits used this period (it ends on');
        expect(toBob.text).toContain('It resumes by itself on 1 Dec 2026');
        expect(toBob.html).toContain('<h1');
        expect(mails).toHaveLength(2);
        expectNoSecret(mails, secretsOf(plugin, sb, smtp, ['alice', 'bob']));
        // Each sent mail is in the log the cooldown reads, as sent.
        expect(
          plugin.db.prepare('SELECT recipient, kind, subject_key, sent_at IS NOT NULL AS sent FROM mail_log ORDER BY recipient').all(),
        ).toEqual([
          { recipient: 'alice@example.org', kind: 'paused', subject_key: 'a1.example', sent: 1 },
          { recipient: 'bob@example.net', kind: 'paused', subject_key: 'b1.example', sent: 1 },
        ]);
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });

  it('warns with the forecast once, and not again within the cooldown; tells of the resume', async () => {
    const clock = manualClock('2026-11-30T22:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['dana', 'dana@example.org', 'd1.example']]);
        plugin.stats.setLimits('global', '', { websiteHits: 1000, warningPercent: 80 });
        await traffic(sb, 'd1.example', 850);
        await syncAndEnforce(plugin);
        const [warning] = await smtp.waitForMails(1);
        expect(warning?.subject).toBe('d1.example is close to its hit limit');
        expect(warning?.text).toContain('850 of 1,000 hits used this period');
        expect(warning?.text).toMatch(/At the current rate the limit will (be reached on .*|not be reached this period)\./);

        // A new period two hours later warns again (enforcement records it), but the mail waits for the cooldown.
        clock.set('2026-12-01T00:30:00Z');
        await traffic(sb, 'd1.example', 900);
        await syncAndEnforce(plugin);
        expect(plugin.stats.recentActions(100).filter((action) => action.action === 'warning')).toHaveLength(2);
        expect(mailJobs(plugin)).toHaveLength(1);

        // Over the limit, then the limit raised: paused and resumed, each told once.
        await traffic(sb, 'd1.example', 200);
        await syncAndEnforce(plugin);
        plugin.stats.setLimits('global', '', { websiteHits: 5000, warningPercent: 80 });
        await plugin.enforceLimits();
        await plugin.idle();
        const mails = await smtp.waitForMails(3);
        expect(mails.map((mail) => mail.subject)).toEqual([
          'd1.example is close to its hit limit',
          'Web protection of d1.example is paused',
          'Web protection of d1.example is on again',
        ]);
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });

  it('tells a customer when monitoring first is over and the website is protected, in Spanish for a Spanish customer', async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin) => {
        plugin.accounts.savePlan({ name: 'trial', settings: {}, subdomains: ['www'], monitorDays: 1 });
        await plugin.postEvents([
          { type: 'account.created', account: 'lena', email: 'lena@example.es', plan: 'trial' },
          { type: 'domain.added', account: 'lena', domain: 'tienda.example' },
        ]);
        await plugin.idle();
        await launchIn(plugin, 'lena', 'es-ES', clock.now());
        clock.set('2026-11-23T12:05:00Z');
        expect(await plugin.switchMonitoring()).toMatchObject({ protected: 1 });
        await plugin.idle();
        const [mail] = await smtp.waitForMails(1);
        expect(mail?.to).toEqual(['lena@example.es']);
        expect(mail?.subject).toBe('tienda.example ya está protegido');
        expect(mail?.language).toBe('es');
        expect(mail?.text).toContain('ahora bloquea los ataques en lugar de solo registrarlos');
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });

  it('sends nothing of a kind the admin switched off on the Settings page', async () => {
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['erin', 'erin@example.org', 'e1.example']]);
        const client = await adminClient(plugin);
        const page = await client.get('/admin/settings');
        expect(textOf(page.body)).toContain('E-mail goes through smtp://wpp-mailer:[redacted]@127.0.0.1');
        expect(page.body).not.toContain(smtp.password);
        // Every box but the customers' pause mail left checked, as the browser sends it.
        const boxes = [...page.body.matchAll(/name="(send-[a-z-]+)" value="on"/g)].map((match) => match[1] as string);
        expect(boxes).toContain('send-customer-paused');
        const fields = Object.fromEntries(boxes.filter((box) => box !== 'send-customer-paused').map((box) => [box, 'on']));
        const saved = await client.post('/admin/settings/mail', { ...fields, cooldownHours: '12', adminEmail: '' });
        expect(saved.status).toBe(303);
        const after = await client.get('/admin/settings?mail=saved');
        expect(textOf(after.body)).toContain('E-mail settings saved.');
        expect(after.body).toMatch(/id="mail-customer-paused" name="send-customer-paused" value="on">/);
        expect(after.body).toMatch(/id="mail-customer-resumed" name="send-customer-resumed" value="on" checked>/);

        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'e1.example', 1200);
        await syncAndEnforce(plugin);
        expect(plugin.stats.recentActions(10).map((action) => action.action)).toContain('pause');
        expect(mailJobs(plugin)).toHaveLength(0);
        // Kinds still on are sent.
        plugin.stats.setLimits('global', '', { websiteHits: 5000 });
        await plugin.enforceLimits();
        await plugin.idle();
        const [resumed] = await smtp.waitForMails(1);
        expect(resumed?.subject).toBe('Web protection of e1.example is on again');
        expect(smtp.received).toHaveLength(1);
      },
      { env: mailEnv(smtp) },
    );
  });
});

describe('without SMTP, or with SMTP down', () => {
  it('queues nothing while WPP_SMTP_URL is unset, and the admin overview and Settings page say so', async () => {
    await withPlugin(async (plugin, sb) => {
      await customers(plugin, [['fay', 'fay@example.org', 'f1.example']]);
      plugin.stats.setLimits('global', '', { websiteHits: 1000 });
      await traffic(sb, 'f1.example', 1200);
      await syncAndEnforce(plugin);
      expect(plugin.stats.recentActions(10).map((action) => action.action)).toContain('pause');
      expect(mailJobs(plugin)).toHaveLength(0);
      expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });
      const client = await adminClient(plugin);
      const off = 'E-mail is off: WPP_SMTP_URL is not set, so no customer, reseller or admin is told by mail.';
      expect(textOf((await client.get('/admin')).body)).toContain(off);
      expect(textOf((await client.get('/admin/settings')).body)).toContain(off);
      expect(smtp.received).toHaveLength(0);
    });
  });

  it('retries a mail the SMTP server does not take, then marks it dead, shown on the jobs page without the password', async () => {
    const down = await startTestSmtp('wpp-mailer', 'down-Pa55word-secret');
    const url = down.url;
    await down.close();
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['gil', 'gil@example.org', 'g1.example']]);
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'g1.example', 1200);
        await syncAndEnforce(plugin);
        await waitFor(() => mailJobs(plugin)[0]?.state === 'dead', 20_000, 'the mail job to be dead');
        const [job] = mailJobs(plugin);
        expect(job?.attempts).toBe(2);
        expect(job?.lastError).toMatch(/ECONNREFUSED|connect/i);
        const client = await adminClient(plugin);
        const page = await client.get('/admin/jobs?state=dead');
        expect(textOf(page.body)).toContain('send an e-mail');
        expect(page.body).not.toContain('down-Pa55word-secret');
        expect(JSON.stringify(mailJobs(plugin))).not.toContain('down-Pa55word-secret');
      },
      { env: { ...mailEnv(smtp), WPP_SMTP_URL: url, WPP_JOB_MAX_ATTEMPTS: '2' } },
    );
  });
});

describe('digests', () => {
  it("gathers two customers' events into one mail to their reseller", async () => {
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [
          ['hana', 'hana@example.org', 'h1.example'],
          ['ivan', 'ivan@example.org', 'i1.example'],
          ['own', 'own@example.org', 'o1.example'],
        ]);
        plugin.accounts.saveReseller({ name: 'rita', email: 'rita@reseller.example' });
        plugin.accounts.setAccountReseller('hana', 'rita');
        plugin.accounts.setAccountReseller('ivan', 'rita');
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        for (const domain of ['h1.example', 'i1.example', 'o1.example']) await traffic(sb, domain, 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(3);

        expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: false });
        await plugin.idle();
        const mails = await smtp.waitForMails(4);
        const digest = mails.find((mail) => mail.to.includes('rita@reseller.example')) as ReceivedMail;
        expect(digest.subject).toBe("Example Hosting: what happened to your customers' websites");
        expect(digest.text).toContain('Hello rita,');
        expect(digest.text).toContain('h1.example (hana) was paused by its hit limit until 1 Dec 2026.');
        expect(digest.text).toContain('i1.example (ivan) was paused by its hit limit until 1 Dec 2026.');
        expect(digest.text).not.toContain('o1.example');
        expect(digest.html).toContain('<li>');
        expectNoSecret(mails, secretsOf(plugin, sb, smtp, ['hana', 'ivan', 'own']));
        // Its events went out: the next digest has none to send.
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });
      },
      { env: mailEnv(smtp), now: manualClock('2026-11-22T12:00:00Z').now },
    );
  });

  it("writes a reseller's digest in the language the reseller last opened the reseller pages in", async () => {
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['kai', 'kai@example.org', 'k1.example']]);
        plugin.accounts.saveReseller({ name: 'rolf', email: 'rolf@reseller.example' });
        plugin.accounts.setAccountReseller('kai', 'rolf');
        const client = createPageClient(plugin.url);
        expect(
          (await client.get(launchUrl(plugin, { ...reseller('rolf'), locale: 'de-AT' }, { now: Date.parse('2026-11-22T12:00:00Z') })))
            .status,
        ).toBe(303);
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'k1.example', 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(1);

        expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: false });
        await plugin.idle();
        const mails = await smtp.waitForMails(2);
        const digest = mails.find((mail) => mail.to.includes('rolf@reseller.example')) as ReceivedMail;
        expect(digest.subject).toBe('Example Hosting: Neues zu den Websites Ihrer Kunden');
        expect(digest.text).toContain('k1.example (kai) wurde durch sein Zugriffslimit bis');
      },
      { env: mailEnv(smtp), now: manualClock('2026-11-22T12:00:00Z').now },
    );
  });

  it("sends the admin's daily digest with a dead job and a website in error", async () => {
    await withPlugin(
      async (plugin, sb) => {
        await sb.control('POST', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
        await customers(plugin, [['jo', 'jo@example.org', 'nowhere.example']]);
        await waitFor(() => plugin.jobs.list({ state: 'dead', limit: 10 }).length === 1, 10_000, 'the dead job');
        await launchInAdmin(plugin, 'es');

        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: true });
        await plugin.idle();
        const [digest] = await smtp.waitForMails(1);
        expect(digest?.to).toEqual(['ops@host.example']);
        expect(digest?.subject).toBe('Example Hosting: resumen diario de protección web');
        expect(digest?.text).toContain('Sitios con error');
        expect(digest?.text).toMatch(/nowhere\.example \(jo\): .*does not resolve/);
        expect(digest?.text).toMatch(/Tarea \d+, panel\.event: .*does not resolve/);
        expectNoSecret([digest as ReceivedMail], secretsOf(plugin, sb, smtp, ['jo']));
        // Once a day: asked again the same day, nothing more.
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });
      },
      { env: mailEnv(smtp, { WPP_ADMIN_EMAIL: 'ops@host.example' }) },
    );
  });
});

describe('nothing is lost from a digest', () => {
  it("keeps a reseller's events for the next digest when the day's digest already went (the cooldown)", async () => {
    const clock = manualClock('2026-11-22T09:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await ritasCustomers(plugin);
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'h1.example', 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(1);
        // The morning's digest (a schedule run, or `wpp` asked by hand) carries hana's pause.
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: false });
        await plugin.idle();
        await smtp.waitForMails(2);

        // Ivan is paused in the afternoon; a second run the same day sends no second digest...
        clock.set('2026-11-22T15:00:00Z');
        await traffic(sb, 'i1.example', 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(3);
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });

        // ...so the next day's digest tells rita of it.
        clock.set('2026-11-23T00:00:00Z');
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: false });
        await plugin.idle();
        const mails = await smtp.waitForMails(4);
        const digests = mails.filter((mail) => mail.to.includes('rita@reseller.example'));
        expect(digests).toHaveLength(2);
        expect(digests[0]?.text).toContain('h1.example (hana) was paused');
        expect(digests[1]?.text).toContain('i1.example (ivan) was paused');
        expect(digests[1]?.text).not.toContain('h1.example');
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });

  it('drops, and does not keep, the events of a kind the admin switched off for resellers since; they would never be sent', async () => {
    const clock = manualClock('2026-11-22T09:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['hana', 'hana@example.org', 'h1.example']]);
        plugin.accounts.saveReseller({ name: 'rita', email: 'rita@reseller.example' });
        plugin.accounts.setAccountReseller('hana', 'rita');
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'h1.example', 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(1);
        // The admin switches the resellers' pause mails off before the digest is made.
        const client = await adminClient(plugin, clock.now());
        const page = await client.get('/admin/settings');
        const boxes = [...page.body.matchAll(/name="(send-[a-z-]+)" value="on"/g)].map((match) => match[1] as string);
        expect(boxes).toContain('send-reseller-paused');
        const fields = Object.fromEntries(boxes.filter((box) => box !== 'send-reseller-paused').map((box) => [box, 'on']));
        expect((await client.post('/admin/settings/mail', { ...fields, cooldownHours: '24', adminEmail: '' })).status).toBe(303);

        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });
        expect(plugin.db.prepare('SELECT COUNT(*) AS n FROM mail_digest_events WHERE digested_at IS NULL').get()).toEqual({ n: 0 });
        expect(mailJobs(plugin)).toHaveLength(1);
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });

  it("covers in the admin's next digest what happened after a digest that went, even when a run in between was skipped", async () => {
    const clock = manualClock('2026-11-22T00:05:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await customers(plugin, [['jo', 'jo@example.org', 'j1.example']]);
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: true });
        await plugin.idle();
        await smtp.waitForMails(1);

        // Paused in the morning; a run at noon sends nothing (the day's digest went at 00:05).
        clock.set('2026-11-22T06:00:00Z');
        plugin.stats.setLimits('global', '', { websiteHits: 1000 });
        await traffic(sb, 'j1.example', 1200);
        await syncAndEnforce(plugin);
        await smtp.waitForMails(2);
        clock.set('2026-11-22T12:00:00Z');
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: false });

        // The next day's digest lists the morning's pause.
        clock.set('2026-11-23T00:05:00Z');
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 0, admin: true });
        await plugin.idle();
        const mails = await smtp.waitForMails(3);
        const digests = mails.filter((mail) => mail.to.includes('ops@host.example'));
        expect(digests).toHaveLength(2);
        expect(digests[1]?.text).toMatch(/Paused by a hit limit\n- j1\.example \(jo\), /);
      },
      { env: mailEnv(smtp, { WPP_ADMIN_EMAIL: 'ops@host.example' }), now: clock.now },
    );
  });
});

describe("a reseller's pool", () => {
  /** What a customer must never read: the pool's totals, and another customer's hits. */
  const poolFigures = (mail: ReceivedMail, figures: string[]) => {
    for (const figure of figures) {
      expect(mail.subject, mail.subject).not.toContain(figure);
      expect(mail.text, mail.subject).not.toContain(figure);
      expect(mail.html, mail.subject).not.toContain(figure);
    }
  };

  it("tells each customer that their websites share the allowance, with none of the pool's figures; the reseller's digest has them", async () => {
    const clock = manualClock('2026-11-22T09:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await ritasCustomers(plugin);
        await launchIn(plugin, 'ivan', 'de-DE', clock.now());
        plugin.stats.setLimits('reseller', 'rita', { accountHits: 1000, warningPercent: 80 });
        await traffic(sb, 'h1.example', 300);
        await traffic(sb, 'i1.example', 550);
        await syncAndEnforce(plugin);

        // 850 of the pool's 1,000 hits: each customer is warned, told the share used, not the pool's hits nor the other's.
        const warnings = await smtp.waitForMails(2);
        const toHana = warnings.find((mail) => mail.to.includes('hana@example.org')) as ReceivedMail;
        const toIvan = warnings.find((mail) => mail.to.includes('ivan@example.org')) as ReceivedMail;
        for (const mail of warnings) poolFigures(mail, ['850', '1,000', '1.000', '1000', '300', '550']);
        expect(toHana.subject).toBe('The hit allowance your websites share is nearly used');
        expect(toHana.text).toContain('The websites of your account hana share a hit allowance with other websites Example Hosting hosts.');
        expect(toHana.text).toContain('85% of it is used this period.');
        expect(toIvan.subject).toBe('Das gemeinsame Zugriffskontingent Ihrer Websites ist fast aufgebraucht');
        expect(toIvan.text).toContain('85 % davon sind in diesem Zeitraum verbraucht.');

        // Over the pool: both websites paused, each customer told without the pool's figures.
        await traffic(sb, 'i1.example', 200);
        await syncAndEnforce(plugin);
        const mails = await smtp.waitForMails(4);
        const pauses = mails.slice(2);
        const pausedHana = pauses.find((mail) => mail.to.includes('hana@example.org')) as ReceivedMail;
        expect(pausedHana.subject).toBe('Web protection of h1.example is paused');
        expect(pausedHana.text).toContain('the hit allowance your websites share with other websites Example Hosting hosts is used up');
        for (const mail of pauses) poolFigures(mail, ['1,050', '1.050', '1050', '1,000', '1.000', '1000', '300', '750']);

        // The reseller's digest has the pool's figures.
        expect(await plugin.sendMailDigests()).toEqual({ resellers: 1, admin: false });
        await plugin.idle();
        const digest = (await smtp.waitForMails(5)).find((mail) => mail.to.includes('rita@reseller.example')) as ReceivedMail;
        expect(digest.text).toContain(
          'Your hit pool is close to its limit: 850 of 1,000 hits used this period (hana was told, without these figures).',
        );
        expect(digest.text).toContain('h1.example (hana) was paused: your hit pool is used up (1,050 of 1,000 hits).');
        expectNoSecret(mails, secretsOf(plugin, sb, smtp, ['hana', 'ivan']));
      },
      { env: mailEnv(smtp), now: clock.now },
    );
  });
});

/** An admin opens the pages in a language: the admin digest follows it. */
async function launchInAdmin(plugin: Plugin, locale: string) {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, { ...admin(), locale }))).status).toBe(303);
}
