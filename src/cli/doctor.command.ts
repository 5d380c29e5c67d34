import { Command } from 'commander';
import { standardChecks } from '../doctor/checks.js';
import { doctorExitCode, formatReports, runDoctor } from '../doctor/doctor.js';

async function runDoctorCommand(options: { json?: boolean; root?: string }): Promise<void> {
  const reports = await runDoctor(standardChecks({ env: process.env, root: options.root }));
  console.log(options.json ? JSON.stringify({ ok: doctorExitCode(reports) === 0, checks: reports }, null, 2) : formatReports(reports));
  process.exitCode = doctorExitCode(reports);
}

export const doctorCommand = () =>
  new Command('doctor')
    .description(
      'check this installation: configuration, database, provider and key, public URL, service, clock, free disk, panel hooks and menu entries',
    )
    .option('--json', 'print the checks as JSON ({ok, checks: [{name, status, detail, ms}]})')
    .option('--root <dir>', 'check an installation staged below this folder (`wpp install <panel> --root DIR`)')
    .addHelpText(
      'after',
      '\nOne line per check: ok, warn, FAIL or skip (a check that needs a valid configuration), its name, what it found.\n' +
        'Each check has 5 seconds. Exit code 1 when any check FAILs; warnings alone exit 0. Secrets are never printed.',
    )
    .action(runDoctorCommand);
