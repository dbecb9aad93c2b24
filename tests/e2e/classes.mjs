// The seeded class the teacher tests open: the NLPCC EOTGC test layout with a model's levels and
// comments (shared by teacher.test.mjs and teacher_devices.test.mjs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LEVELS = ['优秀', '较好', '一般', '合格', '不合格'];

/** A seeded class: 185 essays over grades 3–9, levels, comments (some over 250 chars, some empty). */
export function makeClass(dir, withGold = false) {
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const grades = [...Array(10).fill(3), ...Array(10).fill(4), ...Array(10).fill(5), ...Array(10).fill(6),
    ...Array(46).fill(7), ...Array(37).fill(8), ...Array(62).fill(9)];
  const chars = '我们的学校春天老师同学朋友生活努力梦想成长快乐';
  const para = () => Array.from({ length: 40 + Math.floor(rnd() * 60) }, () => pick([...chars])).join('');
  const essays = grades.map((g, i) => ({
    id: i, grade: String(g), requirement: `阅读下面的材料，根据要求写作。（第${i}题）`, title: `题目${i % 17}`,
    content: [para(), para(), para()].join('\n'),
  }));
  const levels = essays.map((e) => ({ id: e.id, classification: pick(LEVELS) }));
  const comments = essays.map((e) => ({ id: e.id, comment: '文章'.repeat(pick([0, 40, 100, 126, 130])) }));
  const files = {};
  if (withGold) {
    // The samples layout: no ids (numbered by position), gold level and gold comment inside.
    const samples = essays.map(({ id, ...rest }) => ({ ...rest, classification: pick(LEVELS), comment: '好' }));
    files.essays = join(dir, 'samples.json');
    writeFileSync(files.essays, JSON.stringify(samples));
  } else {
    files.essays = join(dir, 'test_data.json');
    writeFileSync(files.essays, JSON.stringify(essays));
  }
  files.levels = join(dir, 'track1.json');
  files.comments = join(dir, 'track2.json');
  writeFileSync(files.levels, JSON.stringify(levels));
  writeFileSync(files.comments, JSON.stringify(comments));
  return { essays, levels, comments, files };
}

