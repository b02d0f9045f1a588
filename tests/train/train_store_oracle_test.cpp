// The training oracle with its results store (train_oracle.h db=PATH, store/train_store.h):
// the key is not part of the recipe, and a training stored by one oracle is found by the next
// one (another process would open the same file) without training again. The training case
// skips with the reason when LibTorch or the dataset is absent.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "rooflens/nas/oracle.h"
#include "rooflens/store/train_store.h"
#include "rooflens/train/train_oracle.h"

namespace rooflens::train {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(TrainStoreSpec, DbIsNotPartOfTheRecipe) {
  auto plain = parse_train_spec("train:fashion-mnist,train-subset=200");
  auto with_db = parse_train_spec("train:fashion-mnist,train-subset=200,db=/tmp/r.sqlite");
  ASSERT_TRUE(plain.has_value() && with_db.has_value()) << with_db.status().message();
  EXPECT_EQ(plain->db, "");
  EXPECT_EQ(with_db->db, "/tmp/r.sqlite");
  EXPECT_EQ(plain->recipe.describe(), with_db->recipe.describe());
  auto none = parse_train_spec("train:fashion-mnist,db=none");
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->db, "");
  auto empty = parse_train_spec("train:fashion-mnist,db=");
  ASSERT_FALSE(empty.has_value());
  EXPECT_TRUE(contains(empty.status().message(), "db= needs a file")) << empty.status().message();
  auto twice = parse_train_spec("train:fashion-mnist,db=a,db=b");
  ASSERT_FALSE(twice.has_value());
  EXPECT_TRUE(contains(twice.status().message(), "'db' given twice")) << twice.status().message();
}

TEST(TrainStoreOracle, SecondOracleFindsTheTrainingInTheFile) {
  if (!trainer_available()) GTEST_SKIP() << "built without LibTorch: " << trainer_versions();
  if (!std::filesystem::is_directory(kFashionMnistDir)) GTEST_SKIP() << "no Fashion-MNIST in " << kFashionMnistDir;
  const std::string db =
      (std::filesystem::temp_directory_path() / ("rooflens-train-store-" + std::to_string(::getpid()) + ".sqlite"))
          .string();
  std::filesystem::remove(db);
  register_train_oracle();
  const std::string spec = "train:fashion-mnist,train-subset=200,test-subset=100,trials=1,db=" + db;
  // Without a registered opener, db= is refused (the train library does not link SQLite).
  register_train_store_opener(nullptr);
  auto refused = nas::make_oracle(spec);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_FALSE(std::filesystem::exists(db));

  register_train_store_opener(store::open_train_cache);
  auto first = make_train_oracle(spec);
  ASSERT_TRUE(first.has_value()) << first.status().message();
  auto* trainer = dynamic_cast<TrainOracle*>(first->get());
  ASSERT_NE(trainer, nullptr);
  auto e = trainer->evaluate(0, 0);  // 8:8:8:8:8: about a second
  ASSERT_TRUE(e.has_value()) << e.status().message();
  EXPECT_EQ(trainer->last_origin(), "");
  EXPECT_FALSE(contains(e->detail, "from the database")) << e->detail;
  auto again = trainer->evaluate(0, 1);  // trials=1: the same training
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(trainer->last_origin(), "the database");
  EXPECT_TRUE(contains(again->detail, "(from the database)")) << again->detail;
  EXPECT_EQ(again->accuracy, e->accuracy);
  EXPECT_EQ(again->cost_seconds, e->cost_seconds);  // charged what it cost when trained

  // The row, as another process sees it.
  auto other = store::SqliteTrainStore::open(db);
  ASSERT_TRUE(other.has_value()) << other.status().message();
  auto hit = (*other)->find(trainer->key(0, 0));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  EXPECT_EQ((*hit)->accuracy, e->accuracy);
  EXPECT_TRUE(contains((*hit)->versions, "LibTorch")) << (*hit)->versions;
  auto final_acc = trainer->final_accuracy(0);
  ASSERT_TRUE(final_acc.has_value());
  EXPECT_EQ(*final_acc, e->accuracy);
  other->reset();
  first->reset();
  std::filesystem::remove(db);
  std::filesystem::remove(db + "-wal");
  std::filesystem::remove(db + "-shm");
}

}  // namespace
}  // namespace rooflens::train
