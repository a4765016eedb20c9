// The Groovy app test's workload: dynamic dispatch, closures and collections in Groovy's own runtime. Runs for
// args[0] seconds, announcing "ready" after the first second (when most of it has been compiled).
long seconds = args ? args[0] as long : 10
def words = (1..5000).collect { Long.toString(new Random(it).nextLong() & 0xffffffffL, 36) }
long start = System.currentTimeMillis()
boolean announced = false
int rounds = 0
while (System.currentTimeMillis() - start < seconds * 1000) {
  def byLength = words.groupBy { it.size() }.collectEntries { length, group -> [length, group.sort().take(3)] }
  rounds += byLength.size() > 0 ? 1 : 0
  if (!announced && System.currentTimeMillis() - start > 1000) {
    println "ready"
    System.out.flush()
    announced = true
  }
}
println "rounds ${rounds}"
