/** `@polymodal/mcp-common/testing/cluster`: server replicas sharing one PostgreSQL, behind their own ports. */
export {
  type Cluster,
  type ClusterOptions,
  type Replica,
  resultText,
  SERVER_BINS,
  startCluster,
} from './cluster.js';
