import { afterAll } from 'vitest';
import { endOfFile } from '../helpers/fileEnd.ts';

/**
 * Every test file: the databases its tests left to be removed and the chains it kept for a next test
 * (test/helpers/fileEnd.ts) are removed when the file ends, not left on the server or running.
 */
afterAll(() => endOfFile());
