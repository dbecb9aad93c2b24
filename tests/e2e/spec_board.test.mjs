// A board of a benchmark defined by a spec (docs/benchmark-spec.md): made through the CLI with
// the spec's .toml beside the gold, its entry page shows the stored numbers (those of
// `scorebench score --spec`), lists the spec among the board's published files with its
// SHA-256, and "Verify in my browser" re-scores the entry bit for bit (the worker reads the
// published spec through the spec module and registers it); in English and Chinese.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { serverAndBrowser, tempDir, artifacts, root, scorebench, pageMetrics } from './support.mjs';

const env = serverAndBrowser();

function run(args, cwd) {
  const r = spawnSync(scorebench, args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('a spec board: stored numbers, the spec published with its hash, verified in the browser', async () => {
  const dir = tempDir('spec-board');
  const files = ['training_set_rel3.tsv', 'predictions.csv'];
  for (const f of files) copyFileSync(join(root, 'tests', 'golden', 'asap_aes', 'asap_02_float_predictions', f), join(dir, f));
  copyFileSync(join(root, 'specs', 'examples', 'asap-aes.toml'), join(dir, 'asap-aes.toml'));
  const want = JSON.parse(run(['score', '--spec', 'asap-aes.toml', ...files, '--json'], dir));
  const slug = `spec-${Date.now()}`;
  const lb = (args) => run(['leaderboard', ...args, '--server', env.base], dir);
  lb(['create', '--slug', slug, '--title', 'ASAP-AES by spec', '--benchmark', 'asap-aes-spec', 'training_set_rel3.tsv', 'asap-aes.toml']);
  const entry = JSON.parse(lb(['submit', '--slug', slug, '--model', 'm', 'predictions.csv'])).entry;
  assert.match(lb(['verify', '--slug', slug]), /identical/);

  const sha = createHash('sha256').update(readFileSync(join(dir, 'asap-aes.toml'))).digest('hex');
  const board = JSON.parse(lb(['show', '--slug', slug, '--json'])).board;
  const spec = board.gold.find((f) => f.role === 'asap-aes-spec:spec');
  assert.equal(spec?.sha256, sha, 'the spec is published with its SHA-256');

  for (const lang of ['en', 'zh']) {
    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.base}/leaderboard/${slug}/entry/${entry}?lang=${lang}`);
    const verify = page.locator('[data-testid=verify]');
    await verify.waitFor({ timeout: 30_000 });
    const shown = await pageMetrics(page, 'body');
    assert.equal(shown['overall/mean_qwk_fisher'], want.overall.metrics.mean_qwk_fisher, 'the stored number is the CLI\'s');
    await verify.click();
    const verdict = page.locator('[data-testid=verdict]');
    await verdict.waitFor({ timeout: 60_000 });
    assert.equal(await verdict.getAttribute('data-ok'), 'true', await verdict.innerText());
    await page.screenshot({ path: join(artifacts, `spec-board-${lang}.png`), fullPage: true });
    assert.deepEqual(errors, [], 'no page errors');
    await page.close();
  }
});

test('a maintainer makes a board of a spec from the page: the .toml beside the gold names the benchmark', async () => {
  const dir = tempDir('spec-create');
  for (const f of ['training_set_rel3.tsv', 'predictions.csv']) {
    copyFileSync(join(root, 'tests', 'golden', 'asap_aes', 'asap_01_basic', f), join(dir, f));
  }
  copyFileSync(join(root, 'specs', 'examples', 'asap-aes.toml'), join(dir, 'asap-aes.toml'));
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const slug = `spec-form-${Date.now()}`;
  await page.goto(`${env.base}/leaderboards?lang=en`);
  await page.locator('[data-testid=create-board] summary').click();
  await page.locator('select[name=benchmark] option[value=":spec"]').waitFor({ state: 'attached', timeout: 60_000 });
  await page.fill('[data-testid=create-board] input[name=slug]', slug);
  await page.fill('[data-testid=create-board] input[name=title]', 'Essays by spec');
  await page.selectOption('select[name=benchmark]', ':spec');
  await page.locator('[data-testid=by-spec-hint]').waitFor();
  await page.setInputFiles('input[name=gold]', [join(dir, 'training_set_rel3.tsv'), join(dir, 'asap-aes.toml')]);
  await page.click('button[data-action=create-board]');
  const created = page.locator('[data-testid=created-board]');
  await created.waitFor({ timeout: 30_000 });
  assert.equal(await created.getAttribute('data-slug'), slug);
  const board = await (await fetch(`${env.base}/api/v1/leaderboards/${slug}`)).json();
  assert.equal(board.board.benchmark, 'asap-aes-spec');
  assert.ok(board.board.gold.some((f) => f.role === 'asap-aes-spec:spec' && f.name === 'asap-aes.toml'));
  // An entry scores as `score --spec` does.
  const sub = JSON.parse(run(['leaderboard', 'submit', '--slug', slug, '--model', 'm', 'predictions.csv', '--server', env.base], dir));
  const want = JSON.parse(run(['score', '--spec', 'asap-aes.toml', 'training_set_rel3.tsv', 'predictions.csv', '--json'], dir));
  assert.deepEqual(sub.report.overall, want.overall);
  await page.screenshot({ path: join(artifacts, 'spec-board-create.png'), fullPage: true });
  assert.deepEqual(errors, [], 'no page errors');
  await page.close();
});
