import { exportFhirCommand } from './export-fhir.command.js';

process.exitCode = await exportFhirCommand(process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
