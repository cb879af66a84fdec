#!/usr/bin/env node
// The `rsg` command. The sources are TypeScript, loaded through tsx's loader: no build step, and the
// code that runs is the code in src/.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
