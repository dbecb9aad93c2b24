// A competition run from the page (issue 27, item 2 and its acceptance): a maintainer creates a
// competition board with hidden gold on the list of boards, adds two teams and a phase with a
// quota; two participants submit with their team tokens; the queue shows their jobs (state and
// place) until they are scored; the owner hides one entry and restores it, rotates the token
// (the old one gets 403), and the audit log lists every action; the same in Chinese. And
// webhooks from the owner console (item 4), checked by a loopback receiver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { serverAndBrowser, startServer, tempDir, artifacts, root, scorebench } from './support.mjs';

// Every scoring job waits 3 s, so the queue is seen holding the jobs.
const env = serverAndBrowser({ args: ['--queue-job-delay-ms', '3000', '--queue-workers', '1'] });
const golden = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');

async function status(path, token) {
  const r = await fetch(env.base + path, { headers: { authorization: `Bearer ${token}` } });
  return r.status;
}

test('a maintainer runs a competition from the page: create, teams, phase, queue, hide, rotate, audit', async () => {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => d.accept());
  const slug = `contest-${process.pid}`;

  // Create: a competition board with hidden gold, from the list of boards.
  await page.goto(`${env.base}/leaderboards?lang=en`);
  await page.locator('[data-testid=create-board] summary').click();
  await page.locator('select[name=benchmark] option[value=eotgc]').waitFor({ state: 'attached', timeout: 60_000 });
  await page.fill('[data-testid=create-board] input[name=slug]', slug);
  await page.fill('[data-testid=create-board] input[name=title]', 'Essay relevance shared task');
  await page.selectOption('select[name=benchmark]', 'eotgc');
  await page.setInputFiles('input[name=gold]', join(golden, 'gold.json'));
  await page.check('input[name=competition]');
  await page.fill('[data-testid=create-phase] input[name=public_share]', '0.5');
  await page.click('button[data-action=create-board]');
  const created = page.locator('[data-testid=created-board]');
  await created.waitFor();
  assert.equal(await created.getAttribute('data-slug'), slug);
  const owner = (await page.locator('[data-testid=created-owner-token]').innerText()).trim();
  assert.match(owner, /^sbo_/);
  const board = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json();
  assert.equal(board.board.competition.hidden_gold, true);
  assert.equal(board.board.competition.public_share, 0.5);
  assert.deepEqual(board.board.gold, []);
  const goldSha = createHash('sha256').update(readFileSync(join(golden, 'gold.json'))).digest('hex');
  assert.equal((await fetch(`${env.base}/api/v1/leaderboards/${slug}/files/${goldSha}`)).status, 404,
    'a hidden gold is never served');

  // The board page opens its console with the kept token; two teams and a phase with a quota.
  await created.locator('a').click();
  await page.locator('[data-testid=competition-console]').waitFor({ timeout: 60_000 });
  const tokens = {};
  for (const team of ['alpha', 'beta']) {
    await page.fill('[data-testid=add-team] input[name=team-name]', team);
    await page.press('[data-testid=add-team] input[name=team-name]', 'Enter');
    const shown = page.locator(`[data-testid=new-team-token][data-team=${team}]`);
    await shown.waitFor();
    tokens[team] = (await shown.innerText()).trim();
    assert.match(tokens[team], /^sbt_/);
    await page.locator(`[data-testid=teams] tr[data-team=${team}]`).waitFor();
  }
  await page.fill('[data-testid=phase-form] input[name=daily_quota]', '3');
  await page.fill('[data-testid=phase-form] input[name=closes]', '2099-01-01T00:00:00Z');
  await page.click('[data-testid=phase-form] button[type=submit]');
  await page.locator('[data-testid=competition-status][data-done="lb.saved"]').waitFor();
  const phase = (await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json()).board.competition;
  assert.equal(phase.daily_quota, 3);
  assert.equal(phase.closes, '2099-01-01T00:00:00Z');
  assert.equal(phase.phase, 'open');
  await page.locator('[data-testid=phase][data-phase=open]').first().waitFor();

  // Two participants submit with their team tokens, from a second tab.
  const participant = await env.browser.newPage();
  participant.on('pageerror', (e) => errors.push(e.message));
  await participant.goto(`${env.base}/leaderboard/${slug}?lang=en`);
  const panel = participant.locator('[data-testid=team-panel]');
  for (const team of ['alpha', 'beta']) {
    await panel.locator('input[name=team-token]').waitFor({ timeout: 60_000 });
    await panel.locator('input[name=team-token]').fill(tokens[team]);
    await panel.locator('input[name=team-token]').press('Enter');
    await participant.locator('[data-testid=team-panel][data-state=open] [data-testid=team-submit]').waitFor();
    await panel.locator('input[name=model]').fill(`${team}-model`);
    await panel.locator('input[name=predictions]').setInputFiles(join(golden, 'pred.json'));
    await panel.locator('button[data-action=submit]').click();
    await panel.locator('[data-testid=team-submitted]').waitFor();
    // The team sees its own submission, and only its own.
    const mine = panel.locator('[data-testid=my-submissions] tbody tr');
    await mine.first().waitFor();
    assert.equal(await mine.count(), 1);
    if (team === 'alpha') await panel.locator('button[data-action=forget-team-token]').click();
  }

  // The owner's queue shows both jobs while they wait (one worker, 3 s a job), then scored.
  await page.click('button[data-action=refresh-queue]');
  const queue = page.locator('[data-testid=queue] tbody tr');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=queue] tbody tr').length === 2);
  const states = await queue.evaluateAll((rows) => rows.map((r) => r.dataset.status));
  assert.ok(states.some((s) => s === 'queued' || s === 'scoring'), `pending jobs in ${states}`);
  const positions = await queue.evaluateAll((rows) => rows.map((r) => r.dataset.position).filter(Boolean));
  if (states.includes('queued')) assert.deepEqual(positions, ['1']);
  await page.screenshot({ path: join(artifacts, 'competition-queue.png'), fullPage: true });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=queue] tbody tr')]
    .every((r) => r.dataset.status === 'done'), null, { timeout: 60_000 });
  // The participant's table follows by itself.
  await participant.waitForFunction(() => document.querySelector('[data-testid=my-submissions] tbody tr')?.dataset.status === 'done',
    null, { timeout: 60_000 });
  const ids = await queue.evaluateAll((rows) => rows.map((r) => Number(r.dataset.entry)));
  const teams = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}/teams`, { headers: { authorization: `Bearer ${owner}` } })).json();
  assert.deepEqual(teams.teams.map((t) => [t.name, t.submissions]), [['alpha', 1], ['beta', 1]]);

  // The public board ranks both teams' entries; hide one, restore it.
  await page.locator(`[data-testid=owner-entries] tr[data-entry="${ids[0]}"] button[data-action=hide]`).click();
  await page.locator(`[data-testid=owner-entries] tr[data-entry="${ids[0]}"][data-state=hidden]`).waitFor();
  let shown = (await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json()).entries.map((e) => e.entry);
  assert.deepEqual(shown, [ids[1]]);
  await page.locator(`[data-testid=owner-entries] tr[data-entry="${ids[0]}"] button[data-action=restore]`).click();
  await page.locator(`[data-testid=owner-entries] tr[data-entry="${ids[0]}"][data-state=visible]`).waitFor();
  shown = (await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json()).entries.map((e) => e.entry);
  assert.deepEqual(shown.sort(), [...ids].sort());

  // Rotate: the old token gets 403.
  await page.click('button[data-action=rotate-token]');
  const fresh = (await page.locator('[data-testid=new-owner-token]').innerText()).trim();
  assert.notEqual(fresh, owner);
  assert.equal(await status(`/api/v1/leaderboards/${slug}/teams`, owner), 403);
  assert.equal(await status(`/api/v1/leaderboards/${slug}/teams`, fresh), 200);

  // The audit log lists every action.
  await page.locator('[data-testid=audit-log] summary').click();
  const actions = await page.$$eval('[data-testid=audit] li', (lis) => lis.map((l) => l.dataset.action));
  for (const a of ['create board', 'add team', 'phase settings', 'submit', 'hide', 'restore', 'rotate token']) {
    assert.ok(actions.includes(a), `${a} in ${actions}`);
  }
  assert.equal(actions.filter((a) => a === 'add team').length, 2);
  assert.equal(actions.filter((a) => a === 'submit').length, 2);
  // Each submission is the team's, in the log.
  assert.equal(await page.locator('[data-testid=audit] li[data-action=submit][data-actor=team]').count(), 2);

  // Chinese: the competition's console and the participants' panel.
  await page.click('button.lang-switch');
  await page.locator('[data-testid=competition-console] h3', { hasText: '竞赛' }).waitFor();
  await page.locator('[data-testid=team-panel] h2', { hasText: '参赛' }).waitFor();
  await page.locator('[data-testid=queue] th', { hasText: '排队位置' }).waitFor();
  await page.screenshot({ path: join(artifacts, 'competition-console-zh.png'), fullPage: true });
  await page.click('button.lang-switch');
  assert.deepEqual(errors, []);
});

test('an owner adds a webhook from the console: deliveries arrive signed and show in its log', async () => {
  // A receiver on loopback that answers 200 and keeps what it got.
  const got = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => { got.push({ headers: req.headers, body }); res.end(); });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const port = receiver.address().port;
  const server = await startServer({ args: ['--webhook-hosts', `127.0.0.1:${port}`] });
  const base = server.url.replace(/\/$/, '');
  try {
    const dir = tempDir('hooks');
    const slug = `hooks-${process.pid}`;
    const lb = (args) => JSON.parse(execFileSync(scorebench, ['leaderboard', ...args, '--server', base], { encoding: 'utf8' }));
    const made = lb(['create', '--slug', slug, '--title', 'Hooks', '--benchmark', 'pairs', '--primary', 'accuracy']);

    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/leaderboard/${slug}?lang=en`);
    await page.fill('input[name=owner-token]', made.owner_token);
    await page.press('input[name=owner-token]', 'Enter');
    await page.locator('[data-testid=owner-console][data-state=open]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=webhooks] summary').click();
    // A host the server does not allow is refused, saying which are.
    await page.fill('input[name=webhook-url]', 'http://127.0.0.1:1/hook');
    await page.press('input[name=webhook-url]', 'Enter');
    await page.locator('[data-testid=webhook-error]', { hasText: `127.0.0.1:${port}` }).waitFor();
    await page.fill('input[name=webhook-url]', `http://127.0.0.1:${port}/hook`);
    await page.press('input[name=webhook-url]', 'Enter');
    const secret = (await page.locator('[data-testid=webhook-secret]').innerText()).trim();
    assert.match(secret, /^whsec_[0-9a-f]{64}$/);
    await page.locator('[data-testid=webhook-list] tr[data-webhook]').waitFor();

    // An entry: the receiver gets it and the new leader, each signed with the secret.
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: String(i), gold: i % 2, pred: i < 40 ? i % 2 : 1 - (i % 2) }));
    writeFileSync(join(dir, 'pred.jsonl'), lines.join('\n') + '\n');
    lb(['submit', '--slug', slug, '--model', 'first', join(dir, 'pred.jsonl')]);
    for (let i = 0; i < 100 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(got.length, 2);
    for (const { headers, body } of got) {
      const expected = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
      assert.equal(headers['x-scorebench-signature-256'], expected);
      assert.equal(headers['x-scorebench-event'], JSON.parse(body).event);
    }
    assert.deepEqual(got.map((g) => JSON.parse(g.body).event).sort(), ['entry.created', 'leader.changed']);

    // The log shows both delivered.
    await page.click('button[data-action=refresh-webhooks]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=deliveries] tr[data-state=delivered]').length === 2);
    // Chinese.
    await page.click('button.lang-switch');
    await page.locator('[data-testid=webhooks] summary', { hasText: 'Webhook 通知' }).waitFor();
    await page.click('button.lang-switch');
    await page.close();
    assert.deepEqual(errors, []);
  } finally {
    await server.stop();
    receiver.close();
  }
});
