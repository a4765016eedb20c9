#include "tests/classfile/generated_sources.h"

namespace jfrbpf::classfile::testing {

std::string bigMethodSource(int returns) {
  std::string body;
  for (int k = 0; k < returns; ++k) {
    body += "                s = s * 31 + (x ^ " + std::to_string(k) + ");\n";
    body += "                if (s == " + std::to_string(k + 1) + ") return " + std::to_string(k) + ";\n";
  }
  // Straight-line code with long, double, String, int[] and Object locals before the widened branches,
  // so the frames computed for their new targets are not trivial.
  return "package cases;\n\n"
         "final class BigMethod {\n"
         "    static int big(int x, String name) {\n"
         "        long l = x * 3L;\n"
         "        double d = l / 2.0;\n"
         "        String t = name + x;\n"
         "        int[] arr = new int[] {x, 2};\n"
         "        Object o = arr;\n"
         "        int s = t.length() + arr.length + o.getClass().getSimpleName().length();\n"
         "        if (x > 0 && d > 1.0) {\n"
         "            do {\n" +
         body +
         "                x--;\n"
         "            } while (x > 0);\n"
         "            s += 7;\n"
         "        }\n"
         "        return s;\n"
         "    }\n\n"
         "    static void run() {\n"
         "        System.out.println(\"big \" + big(3, \"n\") + \" \" + big(0, \"z\"));\n"
         "    }\n"
         "}\n";
}

std::string wideLocalsSource(int locals) {
  std::string declarations;
  std::string sum;
  for (int i = 0; i < locals; ++i) {
    declarations += "        int v" + std::to_string(i) + " = seed + " + std::to_string(i) + ";\n";
    if (i % 7 == 0) sum += (sum.empty() ? "v" : " + v") + std::to_string(i);
  }
  std::string last = "v" + std::to_string(locals - 1);
  return "package cases;\n\n"
         "final class WideLocals {\n"
         "    static long manyLocals(int seed) {\n" +
         declarations +
         "        long wideLong = seed * 1000L;\n"
         "        double wideDouble = seed / 4.0;\n"
         "        long total = 0;\n"
         "        for (int i = 0; i < 3; i++) {\n"
         "            total += " + sum + ";\n"
         "            wideLong++;\n"
         "            wideDouble *= 2;\n"
         "        }\n"
         "        return total + wideLong + (long) wideDouble + " + last + ";\n"
         "    }\n"
         "}\n";
}

}  // namespace jfrbpf::classfile::testing
