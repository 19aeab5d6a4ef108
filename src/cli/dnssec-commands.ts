// `dnssec ds <zone>`: the DS record to give the registrar, one line ready to paste, as
// GET /dns/v2/zones/{name}/dnssec shows it (DNSSEC is turned on with the API or the console).
import { readDnssec } from '../dns/dnssec/toggle.ts';
import { oneArgument, type OperatorCommand } from './command.ts';

export const dnssecDs: OperatorCommand = {
  usage: 'dnssec ds ZONE',
  writes: false,
  async run(op, caller, args, _flags, io) {
    const { ds } = await readDnssec(op.dns, caller, oneArgument(args, 'zone name'));
    io.stdout.write(`${ds}\n`);
  },
};
