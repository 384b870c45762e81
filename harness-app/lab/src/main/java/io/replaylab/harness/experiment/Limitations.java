package io.replaylab.harness.experiment;

/** Limitations that replay-lab's experiments state rather than hide (SPEC R15); a report shows them as the experiment's own. */
final class Limitations {
    private Limitations() {
    }

    /** R15 for a run on one broker and one target database, named as it was (e.g. "SQLite DB", "PostgreSQL database"). */
    static String singleBrokerAndDatabase(String database) {
        return "One broker and one " + database + ": this says nothing about replicated durability or Kafka transactions (EOS).";
    }

    /** R15 for a PostgreSQL target: what the proxy between the subjects and the server changes. */
    static final String POSTGRES_PROXY = "Subjects reach PostgreSQL through the run's PostgreSQL proxy on loopback, which declines TLS: a client "
            + "that insists on TLS (sslmode=require or verify-*) cannot connect through it, and the proxy connects to the target URL's first host "
            + "only (no failover between hosts).";

    /** R15 for the eos experiment: what one fenced zombie on one broker shows, and what it does not. */
    static final String EOS_ONE_ZOMBIE_ONE_BROKER = "Kafka transactions on one broker: this run shows one zombie instance, held "
            + "inside an open transaction while its partitions moved, whose transaction was aborted and whose late commit was refused, and that "
            + "read_committed readers saw every input exactly once. It says nothing about replicated transaction state (a coordinator or "
            + "leader failover), about many concurrent zombies, or about readers using read_uncommitted, which do see the aborted records.";

    /** R15 for the durability experiment: what one deterministic leader crash on a 3-broker cluster shows, and what it does not. */
    static final String DURABILITY_ONE_SCHEDULE = "Replicated durability on a local 3-broker cluster with one KRaft controller: this run "
            + "shows one fault schedule (both followers of a partition frozen while a batch is produced, its leader killed, the followers thawed "
            + "and one elected, the old leader restarted on its data) and which producer and topic settings lost acknowledged records under it. "
            + "It says nothing about disk loss (an fsync that never happened, a page cache lost with the machine), network partitions, "
            + "a controller failure, slow or flaky disks, or any other schedule; all nodes share one machine and one disk.";
}
