import { channelContract } from './channel.case.js';
import { channelCases } from './channel-cases.js';

for (const c of channelCases) channelContract(c);
