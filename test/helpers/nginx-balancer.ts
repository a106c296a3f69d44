/** The nginx runner lives with the benchmarks (built with them into dist/bench, which runs it too), shared by the tests. */
export { NGINX_REFERENCE_CONF, NGINX_REFERENCE_REPLICAS, startNginxBalancer, type NginxBalancer } from '../../bench/nginx-balancer.js';
