import { afterAll } from 'vitest';
import { endOfFile } from '../helpers/fileEnd.ts';

/**
 * Every test file: the databases its tests left being removed (test/helpers/fileEnd.ts) are gone when the file
 * ends, and a removal that failed fails the file.
 */
afterAll(() => endOfFile());
