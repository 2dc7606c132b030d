#!/usr/bin/env node
/** The `polymodal-migrate` bin: see run-migrate-cli.ts. */
import { runMigrateCli } from './run-migrate-cli.js';

process.exitCode = await runMigrateCli({ argv: process.argv.slice(2), env: process.env });
