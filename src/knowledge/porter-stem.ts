// Martin Porter's stemmer (1980), the one SQLite's `porter` tokenizer implements. It runs here,
// not in the database, so both adapters index and search the very same terms, and the ranking
// can count a question's terms in a passage without asking the database.

const VOWEL = /[aeiou]/;

/** the consonant/vowel form of a word, "y" after a consonant counting as a vowel */
function form(word: string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const c = word[i]!;
    const vowel = VOWEL.test(c) || (c === 'y' && i > 0 && out[i - 1] === 'c');
    out += vowel ? 'v' : 'c';
  }
  return out;
}

/** m: the number of vowel-consonant sequences in the stem */
const measure = (stem: string) => (form(stem).replace(/c+/g, 'c').replace(/v+/g, 'v').match(/vc/g) ?? []).length;
const hasVowel = (stem: string) => form(stem).includes('v');
const doubleConsonant = (s: string) => s.length > 1 && s.at(-1) === s.at(-2) && form(s).endsWith('cc');
/** *o: ends consonant-vowel-consonant, the last not w, x or y */
const cvc = (s: string) => s.length > 2 && form(s).endsWith('cvc') && !/[wxy]$/.test(s);

function replaceIf(word: string, rules: [string, string][], condition: (stem: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

const STEP2: [string, string][] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
];
const STEP3: [string, string][] = [['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']];
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'];

/** the Porter stem of a lower-case ASCII word; words of one or two letters are kept */
export function porterStem(input: string): string {
  if (input.length <= 2) return input;
  let w = input;
  // step 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // step 1b
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else {
    const suffix = w.endsWith('ed') ? 'ed' : w.endsWith('ing') ? 'ing' : '';
    if (suffix && hasVowel(w.slice(0, -suffix.length))) {
      w = w.slice(0, -suffix.length);
      if (/(at|bl|iz)$/.test(w)) w += 'e';
      else if (doubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
      else if (measure(w) === 1 && cvc(w)) w += 'e';
    }
  }
  // step 1c
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = replaceIf(w, STEP2, (s) => measure(s) > 0);
  w = replaceIf(w, STEP3, (s) => measure(s) > 0);
  // step 4
  for (const suffix of STEP4) {
    if (w.endsWith(suffix)) {
      const stem = w.slice(0, -suffix.length);
      if (measure(stem) > 1 && (suffix !== 'ion' || /[st]$/.test(stem))) w = stem;
      break;
    }
  }
  // step 5
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !cvc(stem))) w = stem;
  }
  if (measure(w) > 1 && doubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
