import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { chunkText } from '../src/knowledge/chunk-text.js';
import { KnowledgeIndex } from '../src/knowledge/knowledge-index.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
let seed = 42; const rand = () => { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 2 ** 32; };
const letters='abcdefghijklmnopqrstuvwxyz';
const words = Array.from({length:20000},()=>Array.from({length:3+Math.floor(rand()*7)},()=>letters[Math.floor(rand()*26)]).join(''));
const word = () => words[Math.floor(words.length * rand() ** 3)]!;
const sentence = () => `${Array.from({ length: 8 + Math.floor(rand() * 10) }, word).join(' ')}.`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(),'kb-')); const store = openSqliteStore(path.join(dir,'kb.db')); const index = new KnowledgeIndex(store.db);
for (let d=0; d<30; d++) { const text = Array.from({length:6000}, sentence).join(' '); index.add({agentId:'bench',filename:`d${d}`,bytes:1,mimeType:'text/plain',sha256:String(d).padStart(64,'0'),metadata:null}, chunkText(text,{size:700,overlap:100})); }
const db = store.db;
for (const w of [words[0]!, words[5]!, words[100]!, words[3000]!]) {
  let t=performance.now(); const n = db.prepare(`SELECT count(*) n FROM knowledge_fts WHERE knowledge_fts MATCH ?`).get(`"${w}"`) as any; const tc = performance.now()-t;
  t=performance.now(); db.prepare(`SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH ? ORDER BY rank LIMIT 4`).all(`"${w}"`); const tr = performance.now()-t;
  t=performance.now(); db.prepare(`SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH ? ORDER BY rank LIMIT 4`).all(`agent : xABC AND "${w}"`); const ta = performance.now()-t;
  t=performance.now(); index.search('bench', w, 4); const ts = performance.now()-t;
  console.log(w, n.n, 'count', tc.toFixed(1), 'rank', tr.toFixed(1), 'agentAND', ta.toFixed(1), 'search', ts.toFixed(1));
}
fs.rmSync(dir,{recursive:true,force:true});
