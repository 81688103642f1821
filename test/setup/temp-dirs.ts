/** Every integration test file's setup (vitest.config.ts `setupFiles`): its temporary folders go after its tests. */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers/temp-dirs.js';

afterAll(removeTempDirs);
