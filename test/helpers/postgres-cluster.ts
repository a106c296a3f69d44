/** The throwaway cluster lives with the benchmarks (built with them into dist/bench), shared by the tests. */
export { postgresBinaries, startPostgresCluster, type PostgresCluster } from '../../bench/postgres-cluster.js';
