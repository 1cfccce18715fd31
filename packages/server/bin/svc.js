#!/usr/bin/env node
// Runs the svc command from its TypeScript source; tsx also lets config files be written in TypeScript.
import { register } from "tsx/esm/api"

register()
await import("../src/cli.ts")
