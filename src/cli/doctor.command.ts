import { Command } from 'commander';
import { standardChecks } from '../doctor/checks.js';
import { loadConfig, type Config } from '../config.js';
import { doctorExitCode, formatReports, runDoctor } from '../doctor/doctor.js';
import { recordDoctorRun } from '../doctor/record.js';
import { describeError } from '../errors.js';

async function runDoctorCommand(options: { json?: boolean; root?: string }): Promise<void> {
  const reports = await runDoctor(standardChecks({ env: process.env, root: options.root }));
  console.log(options.json ? JSON.stringify({ ok: doctorExitCode(reports) === 0, checks: reports }, null, 2) : formatReports(reports));
  process.exitCode = doctorExitCode(reports);
  // This server's last run, for the fleet's "All servers" page; a staged installation (--root) is not this server.
  if (options.root === undefined) keepRun(reports);
}

function keepRun(reports: Parameters<typeof recordDoctorRun>[1]): void {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch {
    return; // the configuration line said why
  }
  try {
    recordDoctorRun(config, reports, Date.now());
  } catch (error) {
    // The checks were printed; keeping them is a convenience, never a failure of the doctor.
    console.error(`note: this run was not kept for the fleet view: ${describeError(error)}`);
  }
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
