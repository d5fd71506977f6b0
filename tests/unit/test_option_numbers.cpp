// Numbers in command-line values (apps/option_numbers.h): the one reading behind
// --checkpoint-staging, --checkpoint-write-rate and the timeouts. What users type passes; what
// std::stod would silently turn into another number (a hex "0x10" = 16 GiB of staging, " 1",
// "+5", "inf", "nan", "1e-300" as a wait) does not, so each option's check can refuse it by name.
#include <gtest/gtest.h>

#include <cmath>

#include "apps/option_numbers.h"

using slidedp::numberIn;
using slidedp::plainNumber;

TEST(OptionNumbers, PlainDecimalsAreRead) {
  EXPECT_EQ(plainNumber("32"), 32.0);
  EXPECT_EQ(plainNumber("0.5"), 0.5);
  EXPECT_EQ(plainNumber(".5"), 0.5);
  EXPECT_EQ(plainNumber("1e9"), 1e9);
  EXPECT_EQ(plainNumber("1e-300"), 1e-300);  // a number; too short is the option's verdict
  EXPECT_EQ(plainNumber("0"), 0.0);
}

TEST(OptionNumbers, WhatStodWouldBendIsRefused) {
  for (const char* v : {"", " 1", "1 ", "+5", "-5", "0x10", "0X1p4", "inf", "nan", "1e999", "12abc",
                        "abc", "."})
    EXPECT_TRUE(std::isnan(plainNumber(v))) << "'" << v << "'";
}

TEST(OptionNumbers, NumberInHoldsToItsRange) {
  EXPECT_EQ(numberIn("0", 0, 0), 0.0);
  EXPECT_EQ(numberIn("300", 1, 1e9), 300.0);
  EXPECT_TRUE(std::isnan(numberIn("0.5", 1, 1e9)));
  EXPECT_TRUE(std::isnan(numberIn("2e9", 0, 1e9)));
  EXPECT_TRUE(std::isnan(numberIn("-1", -10, 10))) << "a sign is not a plain decimal";
}
