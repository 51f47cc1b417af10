// Shim is a minimal flexd shim in plain Java 17: it plays a Hadoop or YARN
// scheduler's side of the epoch call. It keeps a small in-memory job table,
// posts the cluster's state to flexd every half second
// (POST /v1/clusters/{cluster}/epochs), applies the first interval of the
// answer (each job runs on the slots flexd allocated it for the epoch),
// retries an epoch idempotently with the very same body when a call times
// out or fails, and stops cleanly on SIGTERM. A real shim builds the same
// request from its scheduler's jobs (in YARN, from the FairScheduler's
// applications and their pending and running containers) and applies the
// allocations as each job's share of the next heartbeats' containers.
//
// Usage: java -cp gson.jar:. Shim URL CLUSTER [TOKEN]
// Exit status: 0 when every epoch was answered 200, 1 otherwise.
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

public final class Shim {
    static final double EPOCH = 0.5;       // seconds between calls
    static final int MAP_SLOTS = 20, REDUCE_SLOTS = 10;
    static final int RETRIES = 3;

    /** One job of the table: work in slot-seconds per phase, tasks of 10 s. */
    static final class Job {
        final String id;
        final double submitted, taskTime = 10;
        double mapWork, reduceWork;
        final int mapTasks, reduceTasks;

        Job(String id, double submitted, double mapWork, double reduceWork) {
            this.id = id;
            this.submitted = submitted;
            this.mapWork = mapWork;
            this.reduceWork = reduceWork;
            this.mapTasks = (int) Math.ceil(mapWork / taskTime);
            this.reduceTasks = (int) Math.ceil(reduceWork / taskTime);
        }

        JsonObject phase(double work, int tasks) {
            int left = (int) Math.ceil(work / taskTime);
            JsonObject p = new JsonObject();
            p.addProperty("min", 0);
            p.addProperty("max", left);
            p.addProperty("work", work);
            p.addProperty("pending", left);
            p.addProperty("running", 0);
            p.addProperty("tasks", tasks);
            return p;
        }

        JsonObject toJson() {
            JsonObject j = new JsonObject();
            j.addProperty("id", id);
            j.addProperty("submitted", submitted);
            if (mapWork > 0) {
                j.add("map", phase(mapWork, mapTasks));
            } else if (reduceWork > 0) { // reduce starts once the maps are done
                j.add("reduce", phase(reduceWork, reduceTasks));
            }
            return j;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java Shim URL CLUSTER [TOKEN]");
            System.exit(2);
        }
        String url = args[0] + "/v1/clusters/" + args[1] + "/epochs";
        String token = args.length > 2 ? args[2] : System.getenv("FLEXD_TOKEN");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Gson gson = new Gson();

        List<Job> jobs = new ArrayList<>();
        int[] submitted = {0};
        Runnable refill = () -> {
            while (jobs.size() < 6) {
                int n = submitted[0]++;
                jobs.add(new Job("job_" + n, n, 200 + 97 * (n % 7), 60 + 31 * (n % 5)));
            }
        };
        refill.run();

        // SIGTERM (and Ctrl-C): let the epoch in flight finish, then stop.
        CountDownLatch stopped = new CountDownLatch(1);
        int[] outcome = {0, 0}; // epochs answered 200, epochs that failed
        Thread loop = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            loop.interrupt();
            try {
                stopped.await();
            } catch (InterruptedException ignored) {
            }
            System.out.printf("epochs answered %d, failed %d%n", outcome[0], outcome[1]);
            Runtime.getRuntime().halt(outcome[1] == 0 ? 0 : 1);
        }));

        double now = 0;
        try {
            for (long epoch = 1; !Thread.currentThread().isInterrupted(); epoch++) {
                JsonObject req = new JsonObject();
                req.addProperty("epoch", epoch);
                req.addProperty("now", now);
                req.addProperty("epoch_length", EPOCH);
                JsonObject slots = new JsonObject();
                slots.addProperty("map", MAP_SLOTS);
                slots.addProperty("reduce", REDUCE_SLOTS);
                req.add("slots", slots);
                JsonArray js = new JsonArray();
                for (Job j : jobs) {
                    js.add(j.toJson());
                }
                req.add("jobs", js);
                String body = gson.toJson(req);

                JsonObject answer = post(http, url, token, body);
                if (answer == null) {
                    outcome[1]++;
                } else {
                    outcome[0]++;
                    apply(jobs, answer);
                    jobs.removeIf(j -> j.mapWork <= 0 && j.reduceWork <= 0);
                    refill.run();
                }
                now += EPOCH;
                Thread.sleep((long) (EPOCH * 1000)); // the scheduler's epoch, not a synchronisation
            }
        } catch (InterruptedException stop) {
            // SIGTERM: fall through to the summary.
        } finally {
            stopped.countDown();
        }
    }

    /** post sends one epoch, retrying the same body (an idempotent replay) on a failed call. */
    static JsonObject post(HttpClient http, String url, String token, String body) throws InterruptedException {
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(2))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            if (token != null && !token.isEmpty()) {
                b.header("Authorization", "Bearer " + token);
            }
            try {
                HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                if (res.statusCode() == 200) {
                    return new Gson().fromJson(res.body(), JsonObject.class);
                }
                System.err.printf("epoch refused: %d %s%n", res.statusCode(), res.body());
                if (res.statusCode() < 500) {
                    return null; // the request is wrong: retrying it cannot help
                }
            } catch (IOException e) {
                System.err.println("epoch call failed, retrying: " + e);
            }
        }
        return null;
    }

    /** apply runs each job for one epoch on the slots flexd allocated it now. */
    static void apply(List<Job> jobs, JsonObject answer) {
        for (JsonElement e : answer.getAsJsonArray("allocations")) {
            JsonObject a = e.getAsJsonObject();
            String id = a.get("id").getAsString();
            for (Job j : jobs) {
                if (!j.id.equals(id)) {
                    continue;
                }
                if (j.mapWork > 0) {
                    j.mapWork = Math.max(0, j.mapWork - a.get("map").getAsInt() * EPOCH);
                } else {
                    j.reduceWork = Math.max(0, j.reduceWork - a.get("reduce").getAsInt() * EPOCH);
                }
            }
        }
    }
}
