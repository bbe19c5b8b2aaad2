#!/usr/bin/env bash
# scripts/kafka.sh start|stop|status
# scripts/kafka.sh cluster N | kill NODE | pause NODE | resume NODE | restart NODE
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
#
# cluster N runs N KRaft nodes instead (1..9), from the same jars, each broker and controller at
# once, with its own ports (client KAFKA_SH_CLUSTER_PORT + 10*NODE, default 19200 + 10*NODE;
# controller one above), data directory, log and pid under .kafka/cluster/nodeNODE, and a small
# heap (KAFKA_SH_CLUSTER_HEAP, default 320m). Internal and new topics get replication min(3, N)
# and min.insync.replicas min(2, N). Unlike the single broker, whose groups form at once
# (group.initial.rebalance.delay.ms=0), the cluster keeps the broker default of 3 s, as production
# clusters do: after a coordinator outage that evicted every member, a group re-forms only once
# the members that come back within 3 s have joined, so each gets its own partitions back instead
# of the first one back taking them all (TestClusterFaults/pause-coordinator). It prints the bootstrap list (127.0.0.1:19210,...) when
# every node answers. stop and status cover the cluster's nodes too (stop broker or stop cluster
# stops only one of them). Per node (1..N): kill
# (SIGKILL), pause (SIGSTOP), resume (SIGCONT), restart (SIGKILL if running, then start it again
# on its data and wait until it answers).
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

# --- cluster mode -------------------------------------------------------------------------------
CLUSTER="$STATE/cluster"
CBASE="${KAFKA_SH_CLUSTER_PORT:-19200}"
CHEAP="${KAFKA_SH_CLUSTER_HEAP:-320m}"

node_dir() { echo "$CLUSTER/node$1"; }
node_port() { echo $((CBASE + 10 * $1)); }
node_cport() { echo $((CBASE + 10 * $1 + 1)); }
cluster_size() { if [[ -f "$CLUSTER/size" ]]; then cat "$CLUSTER/size"; else echo 0; fi; }

node_pid() {
  local f pid
  f="$(node_dir "$1")/kafka.pid"
  [[ -f "$f" ]] || return 1
  pid="$(cat "$f")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

node_answers() {
  local port
  port="$(node_port "$1")"
  if command -v kcat >/dev/null; then
    kcat -b "127.0.0.1:$port" -L -m 2 >/dev/null 2>&1
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
  fi
}

cluster_bootstrap() {
  local n i out=""
  n="$(cluster_size)"
  for ((i = 1; i <= n; i++)); do out+="${out:+,}127.0.0.1:$(node_port "$i")"; done
  echo "$out"
}

write_node_config() {
  local node="$1" n="$2" dir voters="" i rf isr
  dir="$(node_dir "$node")"
  for ((i = 1; i <= n; i++)); do voters+="${voters:+,}$i@127.0.0.1:$(node_cport "$i")"; done
  rf=$((n < 3 ? n : 3))
  isr=$((n < 2 ? n : 2))
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$(node_port "$node"),CONTROLLER://127.0.0.1:$(node_cport "$node")
advertised.listeners=PLAINTEXT://127.0.0.1:$(node_port "$node")
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
auto.create.topics.enable=true
num.partitions=4
default.replication.factor=$rf
min.insync.replicas=$isr
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=8
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
unclean.leader.election.enable=false
EOF
}

start_node() {
  local node="$1" dir
  dir="$(node_dir "$node")"
  if node_pid "$node" >/dev/null; then return; fi
  log "starting node $node on 127.0.0.1:$(node_port "$node") (controller $(node_cport "$node")), log $dir/kafka.log"
  nohup "$JAVA" -Xms"$CHEAP" -Xmx"$CHEAP" -XX:+UseG1GC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dkafka.logfile="$dir/kafka.log" -Dlog4j2.configurationFile="$ROOT/scripts/kafka/log4j2.properties" \
    -cp "$(classpath)" kafka.Kafka "$dir/server.properties" >"$dir/kafka.out" 2>&1 &
  echo $! >"$dir/kafka.pid"
}

wait_node() {
  local node="$1" deadline=$((SECONDS + WAIT)) dir
  dir="$(node_dir "$node")"
  until node_answers "$node"; do
    if ! node_pid "$node" >/dev/null; then
      tail -n 30 "$dir/kafka.out" "$dir/kafka.log" >&2 2>/dev/null || true
      die "node $node exited during start-up (see $dir/kafka.log)"
    fi
    ((SECONDS < deadline)) || die "node $node did not answer within ${WAIT}s (see $dir/kafka.log)"
    sleep 0.5
  done
}

cluster() {
  local n="${1:-}" i id cp
  [[ "$n" =~ ^[1-9]$ ]] || die "usage: $0 cluster N (1..9 nodes)"
  if [[ "$(cluster_size)" != 0 && "$(cluster_size)" != "$n" ]]; then
    die "a cluster of $(cluster_size) nodes exists in $CLUSTER; stop it and delete the directory first"
  fi
  check_java
  resolve_jars
  mkdir -p "$CLUSTER"
  echo "$n" >"$CLUSTER/size"
  cp="$(classpath)"
  if [[ -f "$CLUSTER/id" ]]; then id="$(cat "$CLUSTER/id")"; else id="$(cluster_id)"; fi
  echo "$id" >"$CLUSTER/id"
  for ((i = 1; i <= n; i++)); do
    mkdir -p "$(node_dir "$i")/data"
    write_node_config "$i" "$n"
    if [[ ! -f "$(node_dir "$i")/data/meta.properties" ]]; then
      "$JAVA" -cp "$cp" -Dkafka.logfile="$(node_dir "$i")/kafka.log" kafka.tools.StorageTool format \
        -t "$id" -c "$(node_dir "$i")/server.properties" >&2 || die "formatting node $i failed"
    fi
  done
  for ((i = 1; i <= n; i++)); do start_node "$i"; done
  for ((i = 1; i <= n; i++)); do wait_node "$i"; done
  log "cluster of $n nodes answers"
  cluster_bootstrap
}

node_arg() {
  local node="${1:-}"
  [[ "$node" =~ ^[1-9]$ && "$node" -le "$(cluster_size)" ]] || die "no cluster node '$node' (the cluster has $(cluster_size))"
  echo "$node"
}

signal_node() {
  local node pid
  node="$(node_arg "$2")"
  pid="$(node_pid "$node")" || die "node $node is not running"
  kill "-$1" "$pid"
  log "node $node (pid $pid): SIG$1"
}

restart_node() {
  local node pid
  node="$(node_arg "$1")"
  if pid="$(node_pid "$node")"; then
    kill -CONT "$pid" 2>/dev/null || true
    kill -KILL "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  check_java
  start_node "$node"
  wait_node "$node"
  log "node $node answers again"
}

stop_cluster() {
  local n i pid deadline
  n="$(cluster_size)"
  for ((i = 1; i <= n; i++)); do
    if pid="$(node_pid "$i")"; then
      kill -CONT "$pid" 2>/dev/null || true
      kill "$pid" 2>/dev/null || true
    fi
  done
  for ((i = 1; i <= n; i++)); do
    if pid="$(node_pid "$i")"; then
      deadline=$((SECONDS + 30))
      while kill -0 "$pid" 2>/dev/null; do
        ((SECONDS < deadline)) || { kill -9 "$pid" 2>/dev/null || true; break; }
        sleep 0.2
      done
      log "node $i stopped (pid $pid)"
    fi
    rm -f "$(node_dir "$i")/kafka.pid"
  done
}

status_cluster() {
  local n i pid state
  n="$(cluster_size)"
  for ((i = 1; i <= n; i++)); do
    if pid="$(node_pid "$i")"; then
      state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo '?')"
      if [[ "$state" == T ]]; then
        echo "node $i paused pid=$pid bootstrap=127.0.0.1:$(node_port "$i")"
      elif node_answers "$i"; then
        echo "node $i running pid=$pid bootstrap=127.0.0.1:$(node_port "$i")"
      else
        echo "node $i starting pid=$pid bootstrap=127.0.0.1:$(node_port "$i")"
      fi
    else
      echo "node $i stopped"
    fi
  done
}

case "${1:-}" in
  start) start ;;
  stop)
    case "${2:-all}" in
      broker) stop ;;
      cluster) stop_cluster ;;
      all)
        stop
        stop_cluster
        ;;
      *) die "usage: $0 stop [broker|cluster|all]" ;;
    esac
    ;;
  status)
    status_cluster
    status
    ;;
  cluster) cluster "${2:-}" ;;
  kill) signal_node KILL "${2:-}" ;;
  pause) signal_node STOP "${2:-}" ;;
  resume) signal_node CONT "${2:-}" ;;
  restart) restart_node "${2:-}" ;;
  *) echo "usage: $0 start|stop|status|cluster N|kill NODE|pause NODE|resume NODE|restart NODE" >&2; exit 2 ;;
esac
