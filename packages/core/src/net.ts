/** `@polymodal/core/net`: what kind of address a host or an IP is (public, private, loopback, …). */
export { type AddressClassification, classifyAddress } from './net/classify-address.js';
export { isPrivateAddress, isPrivateHostname } from './net/private-network.js';
