import { createUserCommand } from './createuser.command.js';
import { promptHidden } from './prompt.js';

process.exitCode = await createUserCommand(process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  prompt: process.stdin.isTTY ? promptHidden : null,
});
