// The owner console on a board page (issue 27): the owner pastes the token once (kept in this
// browser), edits the board, hides and restores an entry, reads the audit log, rotates the
// token (the old one is refused), switches language, and deletes the board — every action from
// the page, none by curl. The embed page renders the board's numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { serverAndBrowser, tempDir, artifacts, root, scorebench } from './support.mjs';

const env = serverAndBrowser();

function lb(args) {
  return JSON.parse(execFileSync(scorebench, ['leaderboard', ...args, '--server', env.base], { encoding: 'utf8' }));
}

async function status(path, token, method = 'PATCH', body = { title: 'x' }) {
  const r = await fetch(env.base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: method === 'GET' ? undefined : JSON.stringify(body),
  });
  return r.status;
}

test('an owner runs the board from the page: edit, hide, restore, audit, rotate, delete', async () => {
  const dir = tempDir('console');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  copyFileSync(join(src, 'pred.json'), join(dir, 'pred.json'));
  const slug = `console-${process.pid}`;
  const made = lb(['create', '--slug', slug, '--title', 'Console board', '--benchmark', 'eotgc', join(dir, 'gold.json')]);
  const owner = made.owner_token;
  lb(['submit', '--slug', slug, '--model', 'first-model', join(dir, 'pred.json')]);
  lb(['submit', '--slug', slug, '--model', 'second-model', join(dir, 'pred.json')]);

  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => d.accept());
  await page.goto(`${env.base}/leaderboard/${slug}?lang=en`);
  const consoleBox = page.locator('[data-testid=owner-console]');
  await consoleBox.locator('[data-testid=owner-unlock]').waitFor({ timeout: 60_000 });
  // A wrong token is refused and nothing opens.
  await page.fill('input[name=owner-token]', 'sbo_wrong');
  await page.press('input[name=owner-token]', 'Enter');
  await page.locator('[data-testid=owner-error]').waitFor();
  assert.equal(await consoleBox.getAttribute('data-state'), 'locked');
  // The right one, from the keyboard.
  await page.fill('input[name=owner-token]', owner);
  await page.press('input[name=owner-token]', 'Enter');
  await page.locator('[data-testid=owner-console][data-state=open]').waitFor();

  // Edit: the title, and one column fewer.
  assert.equal(await page.locator('th[data-sort=pearson]').count(), 1);
  await page.fill('form[data-testid=board-edit] input[name=title]', 'Console board, renamed');
  await page.uncheck('form[data-testid=board-edit] input[name=metric][value=pearson]');
  await page.click('form[data-testid=board-edit] button[type=submit]');
  await page.locator('[data-testid=owner-status][data-done="lb.saved"]').waitFor();
  await page.locator('h2.board-title', { hasText: 'Console board, renamed' }).waitFor();
  assert.equal(await page.locator('th[data-sort=pearson]').count(), 0, 'the column is gone');

  // Hide entry 1: the public board no longer lists it; restore it.
  await page.click('[data-testid=owner-entries] tr[data-entry="1"] button[data-action=hide]');
  await page.locator('[data-testid=owner-entries] tr[data-entry="1"][data-state=hidden]').waitFor();
  const publicView = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json();
  assert.deepEqual(publicView.entries.map((e) => e.entry), [2]);
  await page.click('[data-testid=owner-entries] tr[data-entry="1"] button[data-action=restore]');
  await page.locator('[data-testid=owner-entries] tr[data-entry="1"][data-state=visible]').waitFor();

  // The token is kept: a reload opens the console by itself.
  await page.reload();
  await page.locator('[data-testid=owner-console][data-state=open]').waitFor({ timeout: 60_000 });

  // Rotate: the new token is shown once and kept; the old one gets 403.
  await page.click('button[data-action=rotate-token]');
  const fresh = (await page.locator('[data-testid=new-owner-token]').innerText()).trim();
  assert.match(fresh, /^sbo_/);
  assert.notEqual(fresh, owner);
  assert.equal(await status(`/api/v1/leaderboards/${slug}`, owner), 403, 'the old token is refused');
  assert.equal(await status(`/api/v1/leaderboards/${slug}/audit`, fresh, 'GET'), 200);

  // The audit log lists every action, in order.
  await page.locator('[data-testid=audit-log] summary').click();
  const actions = await page.$$eval('[data-testid=audit] li', (lis) => lis.map((l) => l.dataset.action));
  for (const a of ['create board', 'submit', 'edit board', 'hide', 'restore', 'rotate token']) {
    assert.ok(actions.includes(a), `${a} in ${actions}`);
  }
  assert.ok(actions.indexOf('hide') < actions.indexOf('restore'));

  // Chinese: the same console.
  await page.click('button.lang-switch');
  await page.locator('[data-testid=owner-console] h2', { hasText: '榜单管理' }).waitFor();
  await page.screenshot({ path: join(artifacts, 'owner-console-zh.png'), fullPage: true });
  await page.click('button.lang-switch');

  // The embed renders the board's rows without JavaScript.
  const embed = await (await fetch(`${env.base}/embed/leaderboard/${slug}`)).text();
  assert.ok(embed.includes('first-model') && embed.includes('second-model'));

  // Delete: the button waits for the slug typed in.
  await page.locator('[data-testid=delete-board] summary').click();
  const del = page.locator('button[data-action=delete-board]');
  assert.ok(await del.isDisabled());
  await page.fill('input[name=confirm-slug]', slug);
  await del.click();
  await page.waitForURL(/\/leaderboards$/);
  assert.equal((await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).status, 404);
  assert.deepEqual(errors, []);
});

test('a submitter edits and withdraws the entry from its page; its receipt checks in the browser', async () => {
  const dir = tempDir('entry-owner');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  copyFileSync(join(src, 'pred.json'), join(dir, 'pred.json'));
  const slug = `entry-owner-${process.pid}`;
  lb(['create', '--slug', slug, '--title', 'Entry owner', '--benchmark', 'eotgc', join(dir, 'gold.json')]);
  const sent = lb(['submit', '--slug', slug, '--model', 'before', join(dir, 'pred.json')]);

  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => d.accept());
  await page.goto(`${env.base}/leaderboard/${slug}/entry/${sent.entry}?lang=en`);
  // The receipt, checked here against the server's published key.
  await page.click('button[data-action=check-receipt]', { timeout: 60_000 });
  await page.locator('[data-testid=receipt][data-ok=true]').waitFor();
  const key = await (await fetch(`${env.base}/.well-known/scorebench-key`)).json();
  assert.ok((await page.locator('[data-testid=receipt]').innerText()).includes(key.key_id));

  // The submitter renames the entry with its token (kept in this browser).
  await page.locator('[data-testid=entry-owner] summary').click();
  await page.fill('[data-testid=entry-owner] input[name=entry-token]', sent.entry_token);
  await page.fill('[data-testid=entry-owner] input[name=model]', 'after');
  await page.fill('[data-testid=entry-owner] textarea[name=meta]', 'organisation=Lab\nparameters=7B');
  await page.click('[data-testid=entry-owner] button[type=submit]');
  await page.locator('[data-testid=model]', { hasText: 'after' }).waitFor({ timeout: 60_000 });
  const shown = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}/entries/${sent.entry}`)).json();
  assert.equal(shown.model, 'after');
  assert.deepEqual(shown.meta, { organisation: 'Lab', parameters: '7B' });
  // A renamed entry's receipt signs the new name.
  assert.equal(shown.receipt.signed.model, 'after');

  // Withdraw: the token is remembered; the entry leaves the public board.
  await page.locator('[data-testid=entry-owner] summary').click();
  assert.equal(await page.inputValue('[data-testid=entry-owner] input[name=entry-token]'), sent.entry_token);
  await page.click('[data-testid=entry-owner] button[data-action=withdraw]');
  await page.waitForLoadState('load');
  await expectGone();
  async function expectGone() {
    for (let i = 0; i < 50; i++) {
      const view = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json();
      if (view.entries.length === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the withdrawn entry is still listed');
  }
  assert.deepEqual(errors, []);
});

test('an owner imports a published table through the column-mapping dialog', async () => {
  const dir = tempDir('import');
  const src = join(root, 'tests', 'golden', 'eotgc', 'eotgc_11_full_size_185');
  copyFileSync(join(src, 'gold.json'), join(dir, 'gold.json'));
  const slug = `import-${process.pid}`;
  const made = lb(['create', '--slug', slug, '--title', 'EOTGC 2025', '--benchmark', 'eotgc', '--primary', 'total',
    join(dir, 'gold.json')]);

  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.base}/leaderboard/${slug}?lang=en`);
  await page.fill('input[name=owner-token]', made.owner_token);
  await page.press('input[name=owner-token]', 'Enter');
  await page.locator('[data-testid=owner-console][data-state=open]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=import-table] summary').click();

  // The organisers' Results.md, whole (a note, the formula, then the table).
  await page.setInputFiles('input[name=import-file]', join(root, 'tests', 'published', 'eotgc-Results.md'));
  const count = page.locator('[data-testid=import-count]');
  await count.waitFor();
  const columns = await page.$$eval('[data-testid=import-columns] tr[data-column]',
    (rows) => rows.map((r) => `${r.dataset.column}=${r.dataset.kind}:${r.dataset.name}`));
  assert.deepEqual(columns, ['Rank=ignore:', 'System Name=model:', 'Track1=metric:score', 'Track2=metric:track2', 'Total=metric:total']);
  const rows = Number(await count.getAttribute('data-rows'));
  assert.equal(rows, 9, "the nine teams of the published table");
  const first = page.locator('[data-testid=import-preview] tbody tr').first();
  assert.equal(await first.getAttribute('data-model'), 'ZZUNLP_Han');
  assert.equal(await first.locator('td[data-metric=total]').getAttribute('data-value'), '0.715');

  // Map Track 2 to "ignore": the preview loses the column (Total stays as written).
  await page.selectOption('[data-testid=import-columns] tr[data-column=Track2] select', 'ignore');
  await page.locator('[data-testid=import-columns] tr[data-column=Track2][data-kind=ignore]').waitFor();
  assert.equal(await page.locator('[data-testid=import-preview] th[data-metric=track2]').count(), 0);
  await page.selectOption('[data-testid=import-columns] tr[data-column=Track2] select', 'metric:track2');
  await page.locator('[data-testid=import-preview] th[data-metric=track2]').waitFor();
  // Nothing was stored by the previews.
  assert.equal((await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json()).entries.length, 0);

  await page.click('button[data-action=import]');
  await page.locator(`[data-testid=import-done][data-entries="${rows}"]`).waitFor();
  const view = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json();
  assert.equal(view.entries.length, rows);
  assert.deepEqual(view.entries.slice(0, 2).map((e) => [e.model, e.metrics.total, e.status]),
    [['ZZUNLP_Han', 0.715, 'reported'], ['TW-NLP', 0.7148, 'reported']]);

  // Chinese: the dialog's texts.
  await page.click('button.lang-switch');
  await page.locator('[data-testid=import-table] summary', { hasText: '导入已发表的结果表' }).waitFor();
  await page.click('button.lang-switch');
  assert.deepEqual(errors, []);
});
