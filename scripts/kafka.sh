#!/usr/bin/env bash
# scripts/kafka.sh start|stop|status
#
# Runs one real Apache Kafka broker (KRaft, combined broker+controller) on loopback for integration
# tests and measurements. The broker jars are resolved from Maven Central through
# scripts/kafka/pom.xml (cached in ~/.m2) and copied into .kafka/lib; data, config, log and pid live
# under .kafka/ in the repository root (ignored by git).
#
# Environment:
#   KAFKA_SH_PORT             client port (default 19092; the embedded broker defaults to 9092)
#   KAFKA_SH_CONTROLLER_PORT  controller port (default client port + 1)
#   KAFKA_SH_HEAP             JVM heap (default 512m)
#   KAFKA_SH_WAIT_SECONDS     how long start waits for the broker to answer (default 180)
#   JAVA                      java binary (default: java on PATH; must be Java 17 or newer)
#
# status prints "running pid=… bootstrap=…" and exits 0, or prints "stopped" and exits 3.
# Data stays in .kafka/data across stop/start; delete .kafka/data for an empty broker.
#
# start prints the bootstrap address (e.g. 127.0.0.1:19092) on stdout when the broker answers, so
#   export HYGIENE_KAFKA_BROKERS=$(scripts/kafka.sh start)
# works.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.kafka"
LIB="$STATE/lib"
DATA="$STATE/data"
CONF="$STATE/server.properties"
LOG="$STATE/kafka.log"
OUT="$STATE/kafka.out"
PIDFILE="$STATE/kafka.pid"
PORT="${KAFKA_SH_PORT:-19092}"
CPORT="${KAFKA_SH_CONTROLLER_PORT:-$((PORT + 1))}"
HEAP="${KAFKA_SH_HEAP:-512m}"
WAIT="${KAFKA_SH_WAIT_SECONDS:-180}"
JAVA="${JAVA:-java}"
BOOTSTRAP="127.0.0.1:$PORT"

log() { echo "kafka.sh: $*" >&2; }
die() { log "$*"; exit 1; }

running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

check_java() {
  command -v "$JAVA" >/dev/null || die "java was not found on PATH; install Java 17 (openjdk-17-jre-headless)"
  local major
  major="$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
  [[ "${major%%.*}" -ge 17 ]] || die "Kafka 4 needs Java 17 or newer; $JAVA is version $major"
}

resolve_jars() {
  local pom="$ROOT/scripts/kafka/pom.xml"
  local stamp="$LIB/.pom.sha256"
  local want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  command -v mvn >/dev/null || die "mvn was not found on PATH; install Maven to resolve the Kafka jars"
  log "resolving Kafka jars from Maven Central into $LIB"
  rm -rf "$LIB"
  mkdir -p "$LIB"
  mvn -B -q -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIB" >&2 \
    || die "mvn could not resolve the Kafka jars (see the output above)"
  echo "$want" >"$stamp"
}

write_config() {
  cat >"$CONF" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://$BOOTSTRAP
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DATA
auto.create.topics.enable=true
num.partitions=4
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
}

classpath() {
  local cp="$ROOT/scripts/kafka"
  local jar
  for jar in "$LIB"/*.jar; do cp="$cp:$jar"; done
  echo "$cp"
}

# cluster_id prints a random Kafka Uuid (16 random bytes, URL-safe base64 without padding), as
# `kafka-storage random-uuid` does, without starting a JVM; like Kafka it avoids a leading "-".
cluster_id() {
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ "$id" != -* ]] && break
  done
  echo "$id"
}

format_storage() {
  [[ -f "$DATA/meta.properties" ]] && return
  local cp id
  cp="$(classpath)"
  id="$(cluster_id)"
  log "formatting KRaft storage in $DATA with cluster id $id"
  "$JAVA" -cp "$cp" -Dkafka.logfile="$LOG" kafka.tools.StorageTool format -t "$id" -c "$CONF" >&2 \
    || die "kafka-storage format failed (see $LOG)"
}

answers() {
  if command -v kcat >/dev/null; then
    kcat -b "$BOOTSTRAP" -L -m 2 >/dev/null 2>&1
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
  fi
}

start() {
  if pid="$(running_pid)"; then
    log "already running (pid $pid)"
    echo "$BOOTSTRAP"
    return
  fi
  check_java
  mkdir -p "$STATE" "$DATA"
  resolve_jars
  write_config
  format_storage
  log "starting broker on $BOOTSTRAP (controller 127.0.0.1:$CPORT), log $LOG"
  nohup "$JAVA" -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
    -Dkafka.logfile="$LOG" -Dlog4j2.configurationFile="$ROOT/scripts/kafka/log4j2.properties" \
    -cp "$(classpath)" kafka.Kafka "$CONF" >"$OUT" 2>&1 &
  echo $! >"$PIDFILE"
  local deadline=$((SECONDS + WAIT))
  until answers; do
    if ! running_pid >/dev/null; then
      tail -n 30 "$OUT" "$LOG" >&2 2>/dev/null || true
      die "the broker exited during start-up (see $LOG and $OUT)"
    fi
    if ((SECONDS >= deadline)); then
      die "the broker did not answer on $BOOTSTRAP within ${WAIT}s (see $LOG)"
    fi
    sleep 0.5
  done
  log "broker answers on $BOOTSTRAP"
  echo "$BOOTSTRAP"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    log "not running"
    rm -f "$PIDFILE"
    return
  fi
  kill "$pid"
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      log "broker (pid $pid) did not stop within 30s; killing it"
      kill -9 "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$PIDFILE"
  log "stopped (pid $pid)"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    if answers; then
      echo "running pid=$pid bootstrap=$BOOTSTRAP"
    else
      echo "starting pid=$pid bootstrap=$BOOTSTRAP (not answering yet)"
    fi
  else
    echo "stopped"
    return 3
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
