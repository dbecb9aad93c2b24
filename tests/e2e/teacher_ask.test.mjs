// "Ask the model" in the class view: the server (holding a key) runs EOTGC Track 1 / Track 2
// against a mock OpenAI-compatible upstream on 127.0.0.1 for the essays that have no level or
// no comment. The consent dialog names the model and its upstream (never a URL); cancel sends
// nothing (the mock counts 0 calls); accept fills exactly the missing levels and comments, with
// progress and cost, and leaves the ones from the files untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  launchBrowser, tempDir, artifacts, startServer, startMockUpstream, upstreamToml,
} from './support.mjs';

const KEY = 'sk-e2e-teacher-0123456789abcdef';
const LEVELS = ['优秀', '较好', '一般', '合格', '不合格'];
// What the mock answers for essay `id` (its prompt carries "第{id}题"): Track 1 a level,
// Track 2 a comment.
const mockLevel = (id) => LEVELS[(id * 3) % 5];
const mockComment = (id) => `模型生成的评语${id}号`;
let mock;
let server;
let browser;
const calls = { levels: 0, comments: 0 };

function startMock() {
  return startMockUpstream((request) => {
    const prompt = request.messages.at(-1).content;
    const id = Number(prompt.match(/第(\d+)题/)[1]);
    const track1 = prompt.includes('只回答一个等级');
    calls[track1 ? 'levels' : 'comments'] += 1;
    return {
      content: track1 ? mockLevel(id) : mockComment(id),
      usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
    };
  });
}

before(async () => {
  mock = await startMock();
  server = await startServer({
    upstreams: upstreamToml({
      name: 'mock-upstream', base_url: mock.url, api_key_env: 'E2E_UPSTREAM_KEY', models: ['essay-model'],
      max_concurrency: 4, price_per_million_input_tokens: 1.5, price_per_million_output_tokens: 6,
    }),
    env: { E2E_UPSTREAM_KEY: KEY },
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  mock?.close();
});

/** 63 essays over grades 3–9; every 4th has no level, every 3rd no comment. */
function makeClass(dir) {
  const chars = '我们的学校春天老师同学朋友生活努力梦想成长快乐';
  const essays = Array.from({ length: 63 }, (_, i) => ({
    id: i, grade: String(3 + (i % 7)), requirement: `阅读下面的材料，根据要求写作。（第${i}题）`, title: `题目${i % 5}`,
    content: Array.from({ length: 3 }, (_, p) => Array.from({ length: 50 }, (_, k) => chars[(i * 7 + p * 3 + k) % chars.length]).join('')).join('\n'),
  }));
  const levels = essays.filter((e) => e.id % 4 !== 0).map((e) => ({ id: e.id, classification: LEVELS[e.id % 5] }));
  const comments = essays.filter((e) => e.id % 3 !== 0).map((e) => ({ id: e.id, comment: '文章'.repeat(e.id % 7) }));
  const files = { essays: join(dir, 'test_data.json'), levels: join(dir, 'track1.json'), comments: join(dir, 'track2.json') };
  writeFileSync(files.essays, JSON.stringify(essays));
  writeFileSync(files.levels, JSON.stringify(levels));
  writeFileSync(files.comments, JSON.stringify(comments));
  return { essays, levels, comments, files };
}

const rowsOf = (page) => page.$$eval('[data-essay-id]', (els) => Object.fromEntries(els.map((e) => [e.dataset.essayId, {
  level: e.dataset.level ?? null, chars: e.dataset.commentChars === undefined ? null : Number(e.dataset.commentChars) }])));

test('ask the model: consent first, cancel sends nothing, accept fills only what is missing', async () => {
  const dir = tempDir('teacher-ask-files');
  const { essays, levels, comments, files } = makeClass(dir);
  const levelOf = Object.fromEntries(levels.map((l) => [l.id, l.classification]));
  const commentOf = Object.fromEntries(comments.map((c) => [c.id, c.comment]));
  const noLevel = essays.filter((e) => !(e.id in levelOf)).map((e) => e.id);
  const noComment = essays.filter((e) => !(e.id in commentOf)).map((e) => e.id);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url + '?lang=en');
  await page.setInputFiles('input[type=file]', [files.essays, files.levels, files.comments]);
  await page.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
  const before = await rowsOf(page);
  assert.equal(Object.keys(before).length, essays.length);

  // The dialog says where the text goes, by the model's and upstream's names, and sends nothing.
  await page.click('button[data-action=model-fill-class]');
  const dialog = page.locator('[data-testid=consent-dialog]');
  await dialog.waitFor();
  const union = new Set([...noLevel, ...noComment]);
  assert.equal(await dialog.getAttribute('data-essays'), String(union.size));
  assert.equal(await dialog.getAttribute('data-model'), 'essay-model');
  const where = await page.locator('[data-testid=consent-text]').innerText();
  assert.ok(where.includes('essay-model') && where.includes('mock-upstream'), where);
  assert.ok(where.includes(`${union.size} essays`), where);
  const html = await page.content();
  assert.ok(!html.includes(`127.0.0.1:${mock.port}`) && !html.includes(KEY), 'no upstream URL or key in the page');
  await page.screenshot({ path: join(artifacts, 'teacher-ask-en.png') });
  await page.click('[data-testid=consent-cancel]');
  await dialog.waitFor({ state: 'detached' });
  await page.waitForTimeout(1000);
  assert.deepEqual(calls, { levels: 0, comments: 0 }, 'cancel sends nothing');

  // In Chinese too.
  await page.click('button.lang-switch');
  await page.click('button[data-action=model-fill-class]');
  await dialog.waitFor();
  assert.ok((await page.locator('[data-testid=consent-text]').innerText()).includes('essay-model'));
  await page.screenshot({ path: join(artifacts, 'teacher-ask-zh.png') });
  await page.click('[data-testid=consent-cancel]');
  await dialog.waitFor({ state: 'detached' });
  // Escape closes it too (Cancel has the focus, so Enter cannot send by accident).
  await page.click('button[data-action=model-fill-class]');
  await dialog.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'consent-cancel');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.click('button.lang-switch');
  assert.deepEqual(calls, { levels: 0, comments: 0 }, 'cancel sends nothing');

  // One essay (no level and no comment): the reader's button asks for that essay only.
  const one = noLevel.find((id) => noComment.includes(id));
  await page.locator(`[data-essay-id="${one}"]`).click();
  await page.click('button[data-action=model-fill-essay]');
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('data-essays'), '1');
  await page.click('[data-testid=consent-accept]');
  await page.locator('[data-testid=model-progress][data-merged=true]').nth(1).waitFor({ timeout: 60_000 });
  assert.deepEqual(calls, { levels: 1, comments: 1 });
  await page.locator(`[data-essay-id="${one}"][data-level="${mockLevel(one)}"]`).waitFor();
  // The list is sorted again (the essay has a level now); the reader stays on the same essay.
  await page.locator(`[data-testid=essay-reader][data-essay="${one}"] .comment`).getByText(mockComment(one)).waitFor();

  // The class: only comments this time (levels unticked), then levels.
  await page.click('button[data-action=model-fill-class]');
  await dialog.waitFor();
  await page.uncheck('input[aria-label="ask levels"]');
  assert.equal(await dialog.getAttribute('data-essays'), String(noComment.length - 1));
  await page.click('[data-testid=consent-accept]');
  await page.locator('[data-testid=model-progress][data-merged=true]').nth(2).waitFor({ timeout: 60_000 });
  assert.deepEqual(calls, { levels: 1, comments: noComment.length });
  await page.click('button[data-action=model-fill-class]');
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('data-essays'), String(noLevel.length - 1));
  await page.click('[data-testid=consent-accept]');
  const last = page.locator('[data-testid=model-progress][data-merged=true]').nth(3);
  await last.waitFor({ timeout: 60_000 });
  assert.deepEqual(calls, { levels: noLevel.length, comments: noComment.length });
  // Progress and cost: every essay done; cost = tokens × the configured prices.
  assert.equal(await last.getAttribute('data-done'), String(noLevel.length - 1));
  assert.equal(await last.getAttribute('data-total'), String(noLevel.length - 1));
  const cost = ((noLevel.length - 1) * 200 * 1.5 + (noLevel.length - 1) * 20 * 6) / 1e6;
  assert.ok((await last.innerText()).includes(`cost ${cost.toFixed(4)}`), await last.innerText());
  await page.screenshot({ path: join(artifacts, 'teacher-ask-done-en.png') });

  // Every essay has a level and a comment now: the model's where it had none, the file's
  // where it had one.
  const after = await rowsOf(page);
  for (const e of essays) {
    const got = after[String(e.id)];
    assert.equal(got.level, levelOf[e.id] ?? mockLevel(e.id), `level of ${e.id}`);
    assert.equal(got.chars, [...(commentOf[e.id] ?? mockComment(e.id))].length, `comment of ${e.id}`);
  }
  const cells = await page.$$eval('[data-testid=class-distribution] [data-grade="overall"][data-level]',
    (els) => els.map((e) => [e.dataset.level, Number(e.dataset.count)]));
  for (const [level, n] of cells) {
    assert.equal(n, essays.filter((e) => (levelOf[e.id] ?? mockLevel(e.id)) === level).length, level);
  }

  // What the model wrote is kept in this browser (IndexedDB, beside the adjustments): the same
  // class dropped again after a reload shows it without asking the model again.
  const total = { ...calls };
  await page.goto(server.url + '?lang=en');
  await page.setInputFiles('input[type=file]', [files.essays, files.levels, files.comments]);
  await page.locator(`[data-essay-id="${noLevel.at(-1)}"][data-level="${mockLevel(noLevel.at(-1))}"]`).waitFor({ timeout: 30_000 });
  const reloaded = await rowsOf(page);
  assert.deepEqual(reloaded, after);
  assert.deepEqual(calls, total, 'nothing is asked again');

  // A private share link carries what the model wrote: a colleague (another browser profile)
  // sees the same levels and comments, and the model is not asked again.
  await page.click('.class-view button[data-action=share]');
  await page.click('[data-testid=share-dialog] button[data-action=share-create]');
  await page.locator('[data-testid=share-made]').waitFor({ timeout: 60_000 });
  const link = await page.locator('[data-testid=share-link]').inputValue();
  const colleague = await launchBrowser();
  try {
    const b = await colleague.newPage();
    b.on('pageerror', (e) => errors.push(e.message));
    await b.goto(link.replace('#', '?lang=en#'));
    await b.locator('[data-testid=share-status][data-state=opened]').waitFor({ timeout: 60_000 });
    await b.locator(`[data-essay-id="${noLevel.at(-1)}"][data-level="${mockLevel(noLevel.at(-1))}"]`).waitFor({ timeout: 30_000 });
    assert.deepEqual(await rowsOf(b), after, 'the colleague sees the model-filled levels and comments');
  } finally {
    await colleague.close();
  }
  assert.deepEqual(calls, total, 'opening the share asks nothing');
  assert.deepEqual(errors, []);
  await page.close();
});
