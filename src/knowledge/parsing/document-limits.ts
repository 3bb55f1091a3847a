import { HeraldError } from '../../errors.js';

/**
 * The answers to a document past one of the `platform.knowledge` limits: each names its
 * config key and value, so the uploader knows what to split and the operator what to raise.
 * Sizes are 413; a document that could not be read in the time or memory given is 422.
 */
export const documentLimitErrors = {
  inflatedEntry: (max: number) =>
    new HeraldError('HERALD_DOCUMENT_TOO_LARGE', `An entry of the archive inflates past platform.knowledge.maxInflatedEntryBytes (${max} bytes).`, { param: 'file' }),
  text: (max: number) =>
    new HeraldError('HERALD_DOCUMENT_TOO_LARGE', `The document's text is longer than platform.knowledge.maxTextChars (${max} characters).`, { param: 'file' }),
  chunks: (max: number) =>
    new HeraldError('HERALD_DOCUMENT_TOO_LARGE', `The document makes more than platform.knowledge.maxChunks (${max}) chunks.`, { param: 'file' }),
  time: (ms: number) =>
    new HeraldError('HERALD_DOCUMENT_UNPROCESSABLE', `The document could not be read within platform.knowledge.parseTimeoutMs (${ms} ms).`, { param: 'file' }),
  memory: (mb: number) =>
    new HeraldError('HERALD_DOCUMENT_UNPROCESSABLE', `Reading the document needs more than platform.knowledge.workerMemoryMb (${mb} MB).`, { param: 'file' }),
  memoryEstimate: (mb: number, elements: number, neededMb: number, markup: 'XML' | 'HTML') =>
    new HeraldError(
      'HERALD_DOCUMENT_UNPROCESSABLE',
      `Reading the document needs more than platform.knowledge.workerMemoryMb (${mb} MB): its ${elements} ${markup} elements take at least ${neededMb} MB to parse.`,
      { param: 'file' },
    ),
};
