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
let tChunk=0, tAdd=0, n=0;
for (let d=0; d<30; d++) { const text = Array.from({length:6000}, sentence).join(' ');
  let t=performance.now(); const pieces = chunkText(text,{size:700,overlap:100}); tChunk+=performance.now()-t;
  t=performance.now(); index.add({agentId:'bench',filename:`d${d}`,bytes:1,mimeType:'text/plain',sha256:String(d).padStart(64,'0'),metadata:null}, pieces); tAdd+=performance.now()-t; n+=pieces.length; }
console.log('chunks', n, 'chunk ms', tChunk.toFixed(0), 'add ms', tAdd.toFixed(0));
const times:number[]=[]; const qs:string[]=[];
for (let q=0;q<200;q++){ const question=`what about ${word()} and ${words[Math.floor(rand()*words.length)]} ${word()}?`; const t=performance.now(); index.search('bench',question,4); times.push(performance.now()-t); qs.push(question);}
const sorted=[...times].sort((a,b)=>a-b); console.log('p50', sorted[100]!.toFixed(1), 'p95', sorted[190]!.toFixed(1), 'max', sorted[199]!.toFixed(1));
const worst = times.indexOf(sorted[199]!); console.log('worst q', qs[worst]);
console.log(store.db.prepare("EXPLAIN QUERY PLAN SELECT c.id FROM knowledge_fts f JOIN knowledge_chunks c ON c.rowid = f.rowid JOIN knowledge_documents d ON d.id = c.document_id WHERE knowledge_fts MATCH 'x' AND f.agent_id = 'a' ORDER BY f.rank LIMIT 4").all());
fs.rmSync(dir,{recursive:true,force:true});
