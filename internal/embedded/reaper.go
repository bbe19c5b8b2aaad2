package embedded

import (
	"context"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// reapInterval is how often the reaper looks at the groups.
const reapInterval = time.Second

// reaper expires the consumer-group members that kfake keeps after their
// process is gone, as Apache Kafka does.
//
// kfake (the version in go.mod) starts a member's session timer when a
// reply reaches the member. A member whose connection closed while its
// JoinGroup waited (a worker killed during a rebalance) is still counted as
// joining: the rebalance completes with it, its JoinGroup reply goes
// nowhere, so no session timer runs, and once the leader's SyncGroup makes
// the group stable nothing removes it. The leader gave it partitions, which
// then no one reads until some other rebalance. Apache Kafka would expire it
// after its session timeout. The reaper restores that: it watches every
// group request that names a member (a kfake control function that only
// observes), and a member of a stable group that has sent none for longer
// than the group's session timeout is made to leave (LeaveGroup v3 with its
// member id), which starts the rebalance that gives its partitions to the
// live members.
type reaper struct {
	client    *kafkago.Client
	transport *kafkago.Transport // the client's connections, closed by close

	mu      sync.Mutex
	seen    map[member]time.Time     // the last request naming the member
	session map[string]time.Duration // per group: the longest session timeout a member joined with

	stop chan struct{}
	done chan struct{}
}

// member names one member of one group.
type member struct{ group, id string }

// startReaper observes cluster's group requests and expires dead members
// of the groups it serves at addr until close.
func startReaper(cluster *kfake.Cluster, addr string) *reaper {
	transport := &kafkago.Transport{}
	r := &reaper{
		client:    &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 5 * time.Second, Transport: transport},
		transport: transport,
		seen:      map[member]time.Time{},
		session:   map[string]time.Duration{},
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	// Only the group requests that name a member are observed: produce and
	// fetch, the broker's hot path, pass no control function.
	for _, k := range []kmsg.Key{kmsg.JoinGroup, kmsg.SyncGroup, kmsg.Heartbeat, kmsg.OffsetCommit, kmsg.LeaveGroup} {
		cluster.ControlKey(int16(k), func(req kmsg.Request) (kmsg.Response, error, bool) {
			r.observe(req, time.Now())
			return nil, nil, false // observe only: kfake handles the request
		})
	}
	go r.loop()
	return r
}

// observe records that the member a group request names is alive.
func (r *reaper) observe(req kmsg.Request, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch q := req.(type) {
	case *kmsg.JoinGroupRequest:
		if d := time.Duration(q.SessionTimeoutMillis) * time.Millisecond; d > r.session[q.Group] {
			r.session[q.Group] = d
		}
		if q.MemberID != "" {
			r.seen[member{q.Group, q.MemberID}] = now
		}
	case *kmsg.SyncGroupRequest:
		r.seen[member{q.Group, q.MemberID}] = now
	case *kmsg.HeartbeatRequest:
		r.seen[member{q.Group, q.MemberID}] = now
	case *kmsg.OffsetCommitRequest:
		if q.MemberID != "" {
			r.seen[member{q.Group, q.MemberID}] = now
		}
	case *kmsg.LeaveGroupRequest:
		delete(r.seen, member{q.Group, q.MemberID})
		for _, m := range q.Members {
			delete(r.seen, member{q.Group, m.MemberID})
		}
	}
}

func (r *reaper) loop() {
	defer close(r.done)
	t := time.NewTicker(reapInterval)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r.reap(ctx, time.Now())
		cancel()
	}
}

// reap makes every silent member of a stable group leave. A member seen
// for the first time starts its clock now, so a member that joined just
// before the broker's start of observation is not taken for dead.
func (r *reaper) reap(ctx context.Context, now time.Time) {
	list, err := r.client.ListGroups(ctx, &kafkago.ListGroupsRequest{})
	if err != nil || len(list.Groups) == 0 {
		return // the broker is closing, or there is nothing to watch
	}
	ids := make([]string, len(list.Groups))
	for i, g := range list.Groups {
		ids[i] = g.GroupID
	}
	desc, err := r.client.DescribeGroups(ctx, &kafkago.DescribeGroupsRequest{GroupIDs: ids})
	if err != nil {
		return
	}
	for _, g := range desc.Groups {
		if g.Error != nil || g.GroupState != "Stable" {
			continue // a rebalance in progress removes the members that do not rejoin itself
		}
		for _, id := range r.silent(g, now) {
			_, _ = r.client.LeaveGroup(ctx, &kafkago.LeaveGroupRequest{
				GroupID: g.GroupID,
				Members: []kafkago.LeaveGroupRequestMember{{ID: id}},
			})
		}
	}
}

// silent returns the members of g that sent nothing for longer than the
// group's session timeout, and forgets the members no longer in g.
func (r *reaper) silent(g kafkago.DescribeGroupsResponseGroup, now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	timeout := r.session[g.GroupID]
	present := make(map[string]bool, len(g.Members))
	var dead []string
	for _, m := range g.Members {
		present[m.MemberID] = true
		k := member{g.GroupID, m.MemberID}
		last, ok := r.seen[k]
		switch {
		case !ok:
			r.seen[k] = now
		case timeout > 0 && now.Sub(last) > timeout:
			dead = append(dead, m.MemberID)
			delete(r.seen, k)
		}
	}
	for k := range r.seen {
		if k.group == g.GroupID && !present[k.id] {
			delete(r.seen, k)
		}
	}
	return dead
}

// close stops the reaper and its connections.
func (r *reaper) close() {
	close(r.stop)
	<-r.done
	r.transport.CloseIdleConnections()
}
